import { describe, expect, it } from 'vitest';
import { ACCEPTED_EXTENSIONS, fileTypeFor } from './file-types.js';

describe('fileTypeFor', () => {
  it('decides by a known extension, whatever MIME type the client declared', () => {
    expect(fileTypeFor('notes.md', 'application/octet-stream')).toEqual({ mime: 'text/markdown', kind: 'markdown' });
    expect(fileTypeFor('index.ts', 'video/mp2t')).toEqual({ mime: 'text/x-typescript', kind: 'code' });
    expect(fileTypeFor('REPORT.PDF', '')).toEqual({ mime: 'application/pdf', kind: 'pdf' });
    expect(fileTypeFor('dir/sub\\config.yml', undefined)).toEqual({ mime: 'text/x-yaml', kind: 'data' });
    expect(fileTypeFor('Dockerfile', null)).toEqual({ mime: 'text/x-dockerfile', kind: 'code' });
    expect(fileTypeFor('.env', null)).toEqual({ mime: 'text/plain', kind: 'data' });
  });

  it('falls back on the declared MIME type (parameters and case aside) when the name says nothing', () => {
    expect(fileTypeFor('README', 'Text/Plain; charset=utf-8')).toEqual({ mime: 'text/plain', kind: 'text' });
    expect(fileTypeFor('upload', 'text/x-markdown')).toEqual({ mime: 'text/markdown', kind: 'markdown' });
    expect(fileTypeFor('feed', 'application/x-ndjson')).toEqual({ mime: 'application/jsonl', kind: 'data' });
  });

  it('refuses binaries and unknown types', () => {
    expect(fileTypeFor('setup.exe', 'application/octet-stream')).toBeNull();
    expect(fileTypeFor('photo.png', 'image/png')).toBeNull();
    expect(fileTypeFor('blob', undefined)).toBeNull();
    expect(fileTypeFor('x.constructor', 'application/octet-stream')).toBeNull();
    expect(fileTypeFor('txt', 'application/octet-stream')).toBeNull();
  });

  it('accepts the fifty-odd extensions the product names', () => {
    expect(ACCEPTED_EXTENSIONS.length).toBeGreaterThanOrEqual(50);
    for (const extension of ['.pdf', '.txt', '.md', '.json', '.py', '.html', '.css', '.yaml', '.toml', '.ini', '.conf', '.sh', '.sql']) {
      expect(ACCEPTED_EXTENSIONS).toContain(extension);
    }
  });
});
