import { describe, expect, it } from 'vitest';
import { MAX_FILE_NAME_LENGTH, folderFileName, sanitizeUploadedName, splitExtension, withoutFolderPrefix } from './file-names.js';

describe('file names', () => {
  it('splits the extension off the last name segment only', () => {
    expect(splitExtension('report.final.pdf')).toEqual(['report.final', '.pdf']);
    expect(splitExtension('.env')).toEqual(['.env', '']);
    expect(splitExtension('Makefile')).toEqual(['Makefile', '']);
    expect(splitExtension('v1.2/notes')).toEqual(['v1.2/notes', '']);
    expect(splitExtension('trailing.')).toEqual(['trailing.', '']);
  });

  it('keeps the last path segment of an uploaded name, without characters file systems refuse', () => {
    expect(sanitizeUploadedName('C:\\Users\\me\\notes.md')).toBe('notes.md');
    expect(sanitizeUploadedName('../../etc/passwd.txt')).toBe('passwd.txt');
    expect(sanitizeUploadedName('what?.md')).toBe('what.md');
    expect(sanitizeUploadedName('tab\there.txt')).toBe('tabhere.txt');
    expect(sanitizeUploadedName('..')).toBeUndefined();
    expect(sanitizeUploadedName('dir/')).toBeUndefined();
    expect(sanitizeUploadedName('???')).toBeUndefined();
  });

  it('cuts a long name before its extension', () => {
    const cut = sanitizeUploadedName(`${'a'.repeat(400)}.md`)!;
    expect(cut).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(cut.endsWith('a.md')).toBe(true);
  });

  it('names copies <folder>/<base>_(N).<ext>', () => {
    expect(folderFileName('docs', 'guide.md', 0)).toBe('docs/guide.md');
    expect(folderFileName('docs', 'guide.md', 2)).toBe('docs/guide_(2).md');
    expect(folderFileName('docs', 'README', 1)).toBe('docs/README_(1)');
  });

  it('drops only the folder prefix from listed names', () => {
    expect(withoutFolderPrefix('docs/guide.md', 'docs')).toBe('guide.md');
    expect(withoutFolderPrefix('docs/sub/guide.md', 'docs')).toBe('sub/guide.md');
    expect(withoutFolderPrefix('other/guide.md', 'docs')).toBe('other/guide.md');
  });
});
