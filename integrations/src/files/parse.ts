import { extractText, getDocumentProxy } from 'unpdf';
import type { ChunkStyle } from './chunker.js';
import type { FileKind } from './file-types.js';

/** A file whose text cannot be extracted; its message is what the file's `error_message` shows. */
export class FileParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileParseError';
  }
}

/** Prose is cut at sentences and paragraphs; code and data at line ends, so a chunk starts at a line. */
export function chunkStyleFor(kind: FileKind): ChunkStyle {
  return kind === 'code' || kind === 'data' ? 'code' : 'prose';
}

/**
 * The text of an uploaded file: PDFs through PDF.js (unpdf's build, pure JavaScript, no network), HTML
 * reduced to its visible text, everything else decoded as UTF-8 (Windows-1252 when it is not valid UTF-8).
 * Line ends become `\n`, so the line numbers agents see do not depend on where the file was written.
 */
export async function extractFileText(data: Uint8Array, kind: FileKind): Promise<string> {
  const text = kind === 'pdf' ? await extractPdfText(data) : decodeText(data);
  const normalized = (kind === 'html' ? htmlToText(text) : text).replace(/\r\n?/g, '\n');
  // PostgreSQL text cannot hold NUL.
  return normalized.includes('\0') ? normalized.replaceAll('\0', '') : normalized;
}

function decodeText(data: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    // A NUL in the first few kilobytes means binary data under a text extension, not a legacy encoding.
    if (data.subarray(0, 8192).includes(0)) throw new FileParseError('The file is not text: it contains binary data.');
    return decodeWindows1252(data);
  }
}

/** What Windows-1252 puts at 0x80–0x9F (undefined bytes stay as they are), where Latin-1 has control codes. */
const WINDOWS_1252_HIGH = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ';

/** Node's TextDecoder reads "windows-1252" as Latin-1, which loses €, curly quotes and dashes. */
function decodeWindows1252(data: Uint8Array): string {
  return new TextDecoder('latin1').decode(data).replace(/[\x80-\x9f]/g, (control) => WINDOWS_1252_HIGH[control.charCodeAt(0) - 0x80]!);
}

async function extractPdfText(data: Uint8Array): Promise<string> {
  let pages: string[];
  try {
    // PDF.js takes ownership of the buffer it is given; a copy keeps the caller's intact.
    const document = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
    try {
      pages = (await extractText(document, { mergePages: false })).text;
    } finally {
      await document.loadingTask.destroy();
    }
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'PasswordException') throw new FileParseError('The PDF is password-protected.');
    const reason = error instanceof Error ? error.message : String(error);
    throw new FileParseError(`The PDF could not be read: ${reason}`);
  }
  const text = pages.map((page) => page.trim()).filter((page) => page.length > 0).join('\n\n');
  if (text.length === 0 && pages.length > 0) {
    throw new FileParseError('The PDF has no extractable text (a scanned PDF needs OCR, which this server does not do).');
  }
  return text;
}

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text a browser would show, with block elements on lines of their own; scripts, styles and comments dropped. */
function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(p|div|section|article|header|footer|li|ul|ol|tr|table|h[1-6]|pre|blockquote)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return HTML_ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
