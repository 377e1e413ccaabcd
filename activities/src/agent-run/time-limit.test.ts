import { describe, expect, it } from 'vitest';
import { grepFiles } from '@engram/core';
import { runWithTimeLimit, TimeLimitExceededError } from './time-limit.js';

describe('runWithTimeLimit', () => {
  it('returns what the work returns, and passes its errors through', () => {
    expect(runWithTimeLimit(() => [1, 2].map((value) => value * 2), 1000)).toEqual([2, 4]);
    expect(() => runWithTimeLimit(() => JSON.parse('{'), 1000)).toThrow(SyntaxError);
  });

  it('stops a regular expression that backtracks without end, and the process goes on', () => {
    const file = { fileId: 'file-1', fileName: 'docs/a.txt', content: `${'a'.repeat(40)}b` };
    expect(() => runWithTimeLimit(() => grepFiles([file], { pattern: '^(a+)+$', include: undefined, contextLines: 0, offset: 0 }), 200)).toThrow(
      TimeLimitExceededError,
    );
    const sane = runWithTimeLimit(() => grepFiles([file], { pattern: 'a+b', include: undefined, contextLines: 0, offset: 0 }), 1000);
    expect(sane.ok && sane.value.matchedFileIds).toEqual(['file-1']);
  });
});
