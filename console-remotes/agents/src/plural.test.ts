import { describe, expect, it } from 'vitest';
import { plural } from './plural.js';

describe('plural', () => {
  it('says one thing in the singular and any other count in the plural', () => {
    expect(plural(1, 'message')).toBe('1 message');
    expect(plural(0, 'message')).toBe('0 messages');
    expect(plural(2, 'entry', 'entries')).toBe('2 entries');
    expect(plural(1200, 'step', undefined, (value) => value.toLocaleString('en'))).toBe('1,200 steps');
  });
});
