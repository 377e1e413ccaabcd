import { describe, it, expect } from 'vitest';
import { fileViewDefaultsFor, fileViewLimitsOf, renderFileView, truncateToLimit, TRUNCATED_MARK } from './file-view.js';
import { checkGrepArgs, checkOpenFilesArgs, describeOpenedFiles, describeSemanticMatches, grepFiles, GREP_LIMITS, type GrepFile } from './file-tools.js';

const poem = 'one\ntwo\nthree\nfour\nfive\n';

describe('file view limits', () => {
  it('scale with the context window, as the reference table says', () => {
    expect(fileViewDefaultsFor(null)).toEqual({ maxFilesOpen: 5, perFileViewWindowCharLimit: 50_000 });
    expect(fileViewDefaultsFor(8_000)).toEqual({ maxFilesOpen: 3, perFileViewWindowCharLimit: 5_000 });
    expect(fileViewDefaultsFor(32_000)).toEqual({ maxFilesOpen: 5, perFileViewWindowCharLimit: 15_000 });
    expect(fileViewDefaultsFor(128_000)).toEqual({ maxFilesOpen: 10, perFileViewWindowCharLimit: 25_000 });
    expect(fileViewDefaultsFor(200_000)).toEqual({ maxFilesOpen: 10, perFileViewWindowCharLimit: 40_000 });
    expect(fileViewDefaultsFor(1_000_000)).toEqual({ maxFilesOpen: 15, perFileViewWindowCharLimit: 40_000 });
  });

  it('prefer the agent setting over the default', () => {
    expect(fileViewLimitsOf({ maxFilesOpen: 2, perFileViewWindowCharLimit: null, contextWindow: 8_000 })).toEqual({
      maxFilesOpen: 2,
      perFileViewWindowCharLimit: 5_000,
    });
  });
});

describe('renderFileView', () => {
  it('numbers every line from 1 under a header giving the line count', () => {
    expect(renderFileView('f/p.txt', poem, { charLimit: 1000 })).toEqual({
      ok: true,
      view: { visibleContent: '[Viewing file start (out of 5 lines)]\n1: one\n2: two\n3: three\n4: four\n5: five', startLine: null, endLine: null },
    });
  });

  it('shows a range from a 0-based offset, stopping at the end of the file', () => {
    expect(renderFileView('f/p.txt', poem, { offset: 1, length: 2, charLimit: 1000 })).toEqual({
      ok: true,
      view: { visibleContent: '[Viewing lines 2 to 3 (out of 5 lines)]\n2: two\n3: three', startLine: 2, endLine: 3 },
    });
    const tail = renderFileView('f/p.txt', poem, { offset: 3, length: 50, charLimit: 1000 });
    expect(tail).toMatchObject({ ok: true, view: { startLine: 4, endLine: 5 } });
  });

  it('rejects an offset past the end and nonsense ranges', () => {
    expect(renderFileView('f/p.txt', poem, { offset: 5, charLimit: 1000 })).toEqual({
      ok: false,
      error: 'f/p.txt has only 5 lines, but offset 5 starts past its end (offsets run from 0 to 4)',
    });
    expect(renderFileView('f/p.txt', poem, { offset: -1, charLimit: 1000 }).ok).toBe(false);
    expect(renderFileView('f/p.txt', poem, { length: 0, charLimit: 1000 }).ok).toBe(false);
  });

  it('cuts the view at the character limit, marking the cut', () => {
    const long = Array.from({ length: 500 }, (_, index) => `line ${index}`).join('\n');
    const result = renderFileView('f/long.txt', long, { charLimit: 200 });
    if (!result.ok) throw new Error(result.error);
    expect(result.view.visibleContent).toHaveLength(200);
    expect(result.view.visibleContent.endsWith(TRUNCATED_MARK)).toBe(true);
    expect(truncateToLimit('short', 200)).toBe('short');
  });
});

describe('open_files arguments', () => {
  it('accepts file requests with optional ranges', () => {
    expect(checkOpenFilesArgs({ file_requests: [{ file_name: 'f/a.md' }, { file_name: 'f/b.md', offset: 10, length: 5 }] }, 3)).toEqual({
      ok: true,
      value: { requests: [{ fileName: 'f/a.md' }, { fileName: 'f/b.md', offset: 10, length: 5 }], closeAllOthers: false },
    });
  });

  it('refuses more files than may be open at once, missing names and repeats', () => {
    const many = { file_requests: [{ file_name: 'f/a' }, { file_name: 'f/b' }, { file_name: 'f/c' }] };
    expect(checkOpenFilesArgs(many, 2)).toEqual({
      ok: false,
      error: 'Cannot open 3 files: you may keep at most 2 files open at once. Request fewer files.',
    });
    expect(checkOpenFilesArgs({ file_requests: [] }, 2).ok).toBe(false);
    expect(checkOpenFilesArgs({ file_requests: [{ offset: 1 }] }, 2).ok).toBe(false);
    expect(checkOpenFilesArgs({ file_requests: [{ file_name: 'f/a', offset: 'x' }] }, 2).ok).toBe(false);
    expect(checkOpenFilesArgs({ file_requests: [{ file_name: 'f/a' }, { file_name: 'f/a' }] }, 2).ok).toBe(false);
  });

  it('says what was opened and what was closed, and why', () => {
    expect(describeOpenedFiles([{ fileName: 'f/a.md' }], [], [])).toBe('* Opened f/a.md');
    expect(describeOpenedFiles([{ fileName: 'f/a.md', offset: 9, length: 5 }, { fileName: 'f/b.md', offset: 0 }], ['f/c.md'], ['f/d.md'])).toBe(
      [
        '* Opened 2 files: f/a.md (lines 10-14), f/b.md (lines 1-end)',
        'Note: Closed 1 file(s) due to close_all_others=True: f/c.md',
        'Note: Closed 1 least recently used file(s) due to open file limit: f/d.md',
      ].join('\n'),
    );
  });
});

describe('grep_files', () => {
  const files: GrepFile[] = [
    { fileId: 'file-1', fileName: 'docs/guide.md', content: '# Guide\nInstall with npm\nRun npm test\nDone' },
    { fileId: 'file-2', fileName: 'code/main.ts', content: 'import x from "npm-thing";\nexport const y = 1;\n' },
    { fileId: 'file-3', fileName: 'docs/pending.md', content: null },
  ];
  const grep = (args: Record<string, unknown>) => {
    const checked = checkGrepArgs(args);
    if (!checked.ok) throw new Error(checked.error);
    const result = grepFiles(files, checked.value);
    if (!result.ok) throw new Error(result.error);
    return result.value;
  };

  it('lists matches with line numbers and context, case-insensitively, after a per-file summary', () => {
    const result = grep({ pattern: 'NPM' });
    expect(result.matchedFileIds.sort()).toEqual(['file-1', 'file-2']);
    expect(result.text).toContain('Found 3 total matches across 2 files (showing matches 1-3 of 3)');
    expect(result.text).toContain('  - docs/guide.md: 2 matches\n  - code/main.ts: 1 matches');
    expect(result.text).toContain('=== docs/guide.md:2 ===\n  1: # Guide\n> 2: Install with npm\n  3: Run npm test');
    expect(result.text).toContain('=== code/main.ts:1 ===\n> 1: import x from "npm-thing";\n  2: export const y = 1;');
    expect(result.text).toContain('No more matches to show.');
  });

  it('filters files by an include pattern and widens or narrows the context', () => {
    const result = grep({ pattern: 'npm', include: '\\.ts$', context_lines: 0 });
    expect(result.matchedFileIds).toEqual(['file-2']);
    expect(result.text).toContain('=== code/main.ts:1 ===\n> 1: import x from "npm-thing";\n');
    expect(grep({ pattern: 'npm', include: '\\.py$' }).text).toBe("No files match the filename pattern '\\.py$' (filtered 3 files)");
  });

  it('pages 20 matches at a time and names the next offset', () => {
    const big: GrepFile = { fileId: 'file-big', fileName: 'f/big.txt', content: Array.from({ length: 45 }, (_, i) => `hit ${i}`).join('\n') };
    const first = grepFiles([big], { pattern: 'hit', include: undefined, contextLines: 0, offset: 0 });
    if (!first.ok) throw new Error(first.error);
    expect(first.value.text).toContain('Found 45 total matches across 1 files (showing matches 1-20 of 45)');
    expect(first.value.text).toContain('To see more matches, call: grep_files(pattern="hit", offset=20)');
    expect(first.value.text.match(/^=== /gm)).toHaveLength(GREP_LIMITS.matchesPerPage);
    const last = grepFiles([big], { pattern: 'hit', include: undefined, contextLines: 0, offset: 40 });
    if (!last.ok) throw new Error(last.error);
    expect(last.value.text).toContain('showing matches 41-45 of 45');
    expect(last.value.text).toContain('No more matches to show.');
  });

  it('reports no matches, counting the files it could not search', () => {
    expect(grep({ pattern: 'zebra' }).text).toBe("No matches found for pattern: 'zebra' (searched 2 files, skipped 1)");
  });

  it('rejects an empty or invalid pattern', () => {
    expect(checkGrepArgs({ pattern: '  ' }).ok).toBe(false);
    const invalid = checkGrepArgs({ pattern: '(' });
    if (!invalid.ok) throw new Error(invalid.error);
    expect(grepFiles(files, invalid.value)).toMatchObject({ ok: false, error: expect.stringContaining('not a valid regular expression') });
  });
});

describe('semantic_search_files result', () => {
  it('groups passages by file with their similarity', () => {
    expect(
      describeSemanticMatches('leave', [
        { fileName: 'h/leave.md', text: '25 days a year', similarity: 0.91 },
        { fileName: 'h/pay.md', text: 'Paid monthly', similarity: 0.42 },
        { fileName: 'h/leave.md', text: 'Carry over 5 days', similarity: null },
      ]),
    ).toBe(
      [
        "Found 3 semantic matches in 2 files for query: 'leave'",
        '',
        '=== h/leave.md ===',
        '  Match 1 (similarity 0.910):',
        '    25 days a year',
        '',
        '  Match 2 (matched by words):',
        '    Carry over 5 days',
        '',
        '=== h/pay.md ===',
        '  Match 1 (similarity 0.420):',
        '    Paid monthly',
      ].join('\n'),
    );
    expect(describeSemanticMatches('x', [])).toBe("No semantic matches found in attached files for query: 'x'");
  });
});
