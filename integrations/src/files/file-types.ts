/**
 * The file types a folder accepts, in one table shared by the upload route (which refuses anything else
 * with 415) and ingestion (which picks a parser and a chunker by `kind`).
 *
 * - `pdf`: binary, its text has to be extracted.
 * - `text`: prose, chunked by sentences.
 * - `markdown`: prose with headings and paragraphs, chunked along them.
 * - `html`: markup whose text is what matters.
 * - `code`: source code and scripts, chunked by lines.
 * - `data`: structured data and configuration, chunked by lines.
 */
export type FileKind = 'pdf' | 'text' | 'markdown' | 'html' | 'code' | 'data';

export type FileType = { mime: string; kind: FileKind };

const type = (mime: string, kind: FileKind): FileType => ({ mime, kind });

/** Extension (lowercase, no dot) → the MIME type the file is stored as and its kind. */
export const FILE_TYPES_BY_EXTENSION: Readonly<Record<string, FileType>> = {
  pdf: type('application/pdf', 'pdf'),

  txt: type('text/plain', 'text'),
  text: type('text/plain', 'text'),
  log: type('text/plain', 'text'),
  rst: type('text/x-rst', 'text'),
  tex: type('text/x-tex', 'text'),
  adoc: type('text/asciidoc', 'text'),

  md: type('text/markdown', 'markdown'),
  markdown: type('text/markdown', 'markdown'),
  mdx: type('text/markdown', 'markdown'),

  html: type('text/html', 'html'),
  htm: type('text/html', 'html'),

  json: type('application/json', 'data'),
  jsonl: type('application/jsonl', 'data'),
  ndjson: type('application/jsonl', 'data'),
  csv: type('text/csv', 'data'),
  tsv: type('text/tab-separated-values', 'data'),
  xml: type('application/xml', 'data'),
  yaml: type('text/x-yaml', 'data'),
  yml: type('text/x-yaml', 'data'),
  toml: type('application/toml', 'data'),
  ini: type('text/x-ini', 'data'),
  cfg: type('text/x-conf', 'data'),
  conf: type('text/x-conf', 'data'),
  env: type('text/plain', 'data'),
  properties: type('text/x-java-properties', 'data'),
  css: type('text/css', 'data'),
  scss: type('text/x-scss', 'data'),
  sass: type('text/x-sass', 'data'),
  less: type('text/x-less', 'data'),

  sql: type('text/x-sql', 'code'),
  sh: type('text/x-shellscript', 'code'),
  bash: type('text/x-shellscript', 'code'),
  zsh: type('text/x-shellscript', 'code'),
  ps1: type('text/x-powershell', 'code'),
  bat: type('text/x-batch', 'code'),
  cmd: type('text/x-batch', 'code'),
  dockerfile: type('text/x-dockerfile', 'code'),
  py: type('text/x-python', 'code'),
  js: type('text/javascript', 'code'),
  mjs: type('text/javascript', 'code'),
  cjs: type('text/javascript', 'code'),
  jsx: type('text/x-jsx', 'code'),
  ts: type('text/x-typescript', 'code'),
  tsx: type('text/x-tsx', 'code'),
  vue: type('text/x-vue', 'code'),
  svelte: type('text/x-svelte', 'code'),
  java: type('text/x-java-source', 'code'),
  kt: type('text/x-kotlin', 'code'),
  kts: type('text/x-kotlin', 'code'),
  scala: type('text/x-scala', 'code'),
  go: type('text/x-go', 'code'),
  rs: type('text/x-rust', 'code'),
  c: type('text/x-c', 'code'),
  h: type('text/x-c', 'code'),
  cpp: type('text/x-c++', 'code'),
  cc: type('text/x-c++', 'code'),
  cxx: type('text/x-c++', 'code'),
  hpp: type('text/x-c++', 'code'),
  cs: type('text/x-csharp', 'code'),
  m: type('text/x-objective-c', 'code'),
  swift: type('text/x-swift', 'code'),
  rb: type('text/x-ruby', 'code'),
  php: type('text/x-php', 'code'),
  pl: type('text/x-perl', 'code'),
  lua: type('text/x-lua', 'code'),
  r: type('text/x-r', 'code'),
  dart: type('text/x-dart', 'code'),
  graphql: type('application/graphql', 'code'),
  proto: type('text/x-protobuf', 'code'),
};

/**
 * Declared MIME types that name an accepted type on their own, for files whose name has no known
 * extension: every type of the table, plus the aliases clients commonly send.
 */
const FILE_TYPES_BY_MIME: ReadonlyMap<string, FileType> = new Map([
  // Reversed, so that where extensions share a type the first in the table names it (`text/plain` is `.txt`, not `.env`).
  ...Object.values(FILE_TYPES_BY_EXTENSION)
    .reverse()
    .map((entry) => [entry.mime, entry] as const),
  ['text/x-markdown', type('text/markdown', 'markdown')],
  ['application/x-jsonlines', type('application/jsonl', 'data')],
  ['application/x-ndjson', type('application/jsonl', 'data')],
  ['text/xml', type('application/xml', 'data')],
  ['application/x-yaml', type('text/x-yaml', 'data')],
  ['application/yaml', type('text/x-yaml', 'data')],
  ['application/javascript', type('text/javascript', 'code')],
  ['application/x-sh', type('text/x-shellscript', 'code')],
  ['text/x-script.python', type('text/x-python', 'code')],
]);

function extensionOf(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  // `Dockerfile` has no extension but names its type all the same; `.env` is all extension.
  if (dot < 0) return base.toLowerCase() === 'dockerfile' ? 'dockerfile' : '';
  return base.slice(dot + 1).toLowerCase();
}

/** `text/markdown; charset=utf-8` → `text/markdown`. */
function bareMime(declaredMime: string | null | undefined): string {
  return (declaredMime ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * What an upload is, or null when it is nothing a folder accepts. A known extension decides (clients
 * often declare `application/octet-stream`, and `.ts` is declared `video/mp2t`); without one, the
 * declared MIME type does.
 */
export function fileTypeFor(fileName: string, declaredMime: string | null | undefined): FileType | null {
  const extension = extensionOf(fileName);
  // An own-property check, so that `x.constructor` is not taken for a known extension.
  const byExtension = Object.hasOwn(FILE_TYPES_BY_EXTENSION, extension) ? FILE_TYPES_BY_EXTENSION[extension] : undefined;
  return byExtension ?? FILE_TYPES_BY_MIME.get(bareMime(declaredMime)) ?? null;
}

/** For error messages: every accepted extension, dotted, in table order. */
export const ACCEPTED_EXTENSIONS: readonly string[] = Object.keys(FILE_TYPES_BY_EXTENSION).map((extension) => `.${extension}`);
