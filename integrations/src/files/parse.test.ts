import { describe, expect, it } from 'vitest';
import { minimalPdf } from '@engram/testing/fixtures/minimal-pdf';
import { chunkStyleFor, extractFileText, FileParseError } from './parse.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('extracting the text of an upload', () => {
  it('decodes UTF-8 without its byte order mark and with line ends made \\n', async () => {
    expect(await extractFileText(utf8('\uFEFFFirst line\r\nSecond — ünïcode\rThird'), 'text')).toBe('First line\nSecond — ünïcode\nThird');
    expect(await extractFileText(utf8('{"a": [1, 2]}\n'), 'data')).toBe('{"a": [1, 2]}\n');
  });

  it('reads text that is not valid UTF-8 as Windows-1252', async () => {
    expect(await extractFileText(Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x35]), 'text')).toBe('café €5');
  });

  it('refuses binary data under a text extension', async () => {
    const binary = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0xff, 0xfe]);
    await expect(extractFileText(binary, 'code')).rejects.toThrow(new FileParseError('The file is not text: it contains binary data.'));
  });

  it('drops NUL characters, which PostgreSQL text cannot hold', async () => {
    expect(await extractFileText(utf8('a\0b'), 'text')).toBe('ab');
  });

  it('keeps the visible text of HTML, one block per line, without scripts, styles or comments', async () => {
    const html = `<html><head><style>p { color: red }</style><script>alert("x")</script></head>
      <body><h1>Title &amp; more</h1><!-- hidden --><p>First&nbsp;paragraph with <b>bold</b> text.</p><ul><li>one</li><li>two &#8212; &#x41;</li></ul></body></html>`;
    expect(await extractFileText(utf8(html), 'html')).toBe('Title & more\n\nFirst paragraph with bold text.\n\none\n\ntwo — A');
  });

  it('extracts the text of every page of a PDF, pages separated by a blank line', async () => {
    const pdf = minimalPdf([['Engram keeps agents durable.', 'Second line (with parentheses).'], ['Page two speaks of lemon trees.']]);
    expect(await extractFileText(pdf, 'pdf')).toBe('Engram keeps agents durable.\nSecond line (with parentheses).\n\nPage two speaks of lemon trees.');
  });

  it('fails with a clear reason on a broken PDF and on one without any text', async () => {
    await expect(extractFileText(utf8('%PDF-1.4 this is not really a pdf'), 'pdf')).rejects.toThrow(/^The PDF could not be read: /);
    await expect(extractFileText(minimalPdf([[]]), 'pdf')).rejects.toThrow('The PDF has no extractable text');
  });

  it('chunks code and data by lines and everything else as prose', () => {
    expect(['code', 'data'].map((kind) => chunkStyleFor(kind as 'code'))).toEqual(['code', 'code']);
    expect((['pdf', 'text', 'markdown', 'html'] as const).map(chunkStyleFor)).toEqual(['prose', 'prose', 'prose', 'prose']);
  });
});
