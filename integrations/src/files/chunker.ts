import { createHash } from 'node:crypto';

/**
 * Splits a file's text into overlapping chunks for embedding. Sizes are in tokens, estimated at four
 * characters each (as the archival token limit is). Prose is cut at paragraph, then sentence, then word
 * boundaries; code at blank lines, then line ends, so a chunk never starts in the middle of a statement.
 *
 * The chunking is deterministic and restartable: where a chunk starts depends only on where the previous
 * one started, so an embedding batch can recompute its own chunks from `{ index, start }` of its first
 * chunk, without the chunks ever passing through workflow history.
 */

export type ChunkStyle = 'prose' | 'code';

export type ChunkingOptions = {
  /** Longest chunk, in characters. */
  maxChars: number;
  /** How much of the end of a chunk the next one repeats, in characters (about, it starts at a boundary). */
  overlapChars: number;
  style: ChunkStyle;
};

export type Chunk = { index: number; start: number; end: number; text: string };

/** Where a run of chunks resumes: the index and start offset of its first chunk. */
export type ChunkCursor = { index: number; start: number };

/** The reference server's defaults: `embedding_chunk_size` 300 tokens, overlap 50 tokens. */
export const DEFAULT_CHUNK_TOKENS = 300;
export const CHUNK_OVERLAP_TOKENS = 50;
const CHARS_PER_TOKEN = 4;
/** Below this a chunk is too small to say anything on its own; tiny configured sizes are raised to it. */
const MIN_CHUNK_CHARS = 64;

export function chunkingOptions(input: { chunkTokens?: number | null; style: ChunkStyle }): ChunkingOptions {
  const tokens = input.chunkTokens && input.chunkTokens > 0 ? input.chunkTokens : DEFAULT_CHUNK_TOKENS;
  const maxChars = Math.max(MIN_CHUNK_CHARS, Math.round(tokens * CHARS_PER_TOKEN));
  // At most a quarter of a chunk, so every chunk moves well past the start of the one before.
  const overlapChars = Math.min(CHUNK_OVERLAP_TOKENS * CHARS_PER_TOKEN, Math.floor(maxChars / 4));
  return { maxChars, overlapChars, style: input.style };
}

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11 || code === 0xa0;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

function skipSpace(text: string, position: number): number {
  while (position < text.length && isSpace(text.charCodeAt(position))) position += 1;
  return position;
}

/** Where a chunk's content starts: past blank space, but in code at the start of its line, indentation kept. */
function contentStart(text: string, position: number, style: ChunkStyle): number {
  const first = skipSpace(text, position);
  if (style !== 'code' || first >= text.length) return first;
  const lastBlankLine = text.slice(position, first).lastIndexOf('\n');
  return lastBlankLine >= 0 ? position + lastBlankLine + 1 : position;
}

/** A sentence ends at `.`, `!`, `?` (or their CJK forms) followed by whitespace; the cut goes after the whitespace run's start. */
const SENTENCE_END = /[.!?。！？]["')\]]*(?=\s)/g;

/** The last sentence end within [from, to), as the offset just after the punctuation, or -1. */
function lastSentenceEnd(text: string, from: number, to: number): number {
  // Searched in the window alone (plus the character that shows the punctuation is followed by a space),
  // so a text without sentences is not scanned to its end for every chunk.
  const window = text.slice(from, Math.min(to + 1, text.length));
  let found = -1;
  for (const match of window.matchAll(SENTENCE_END)) {
    const end = from + match.index + match[0].length;
    if (end <= to) found = end;
  }
  return found;
}

/** The last whitespace within [from, to), or -1. */
function lastSpace(text: string, from: number, to: number): number {
  for (let position = to - 1; position >= from; position -= 1) if (isSpace(text.charCodeAt(position))) return position;
  return -1;
}

/** The offset just after the last `separator` that ends within [from, to], or -1. */
function lastSeparatorEnd(text: string, separator: string, from: number, to: number): number {
  // Searched in the window alone: lastIndexOf on the whole text would scan back to its start when the
  // window has no separator, for every chunk.
  const found = text.slice(from, to).lastIndexOf(separator);
  return found >= 0 ? from + found + separator.length : -1;
}

/** Where a chunk starting at `start` ends: the best boundary in its second half, else a hard cut at `maxChars`. */
function chunkEnd(text: string, start: number, options: ChunkingOptions): number {
  const limit = start + options.maxChars;
  if (limit >= text.length) return text.length;
  const earliest = start + Math.floor(options.maxChars / 2);
  const candidates =
    options.style === 'code'
      ? [() => lastSeparatorEnd(text, '\n\n', earliest, limit), () => lastSeparatorEnd(text, '\n', earliest, limit)]
      : [
          () => lastSeparatorEnd(text, '\n\n', earliest, limit),
          () => lastSentenceEnd(text, earliest, limit),
          () => lastSeparatorEnd(text, '\n', earliest, limit),
        ];
  candidates.push(() => lastSpace(text, earliest, limit));
  for (const candidate of candidates) {
    const end = candidate();
    if (end > start) return end;
  }
  // No boundary at all (a minified line, a base64 blob): cut, but never between the halves of a surrogate pair.
  return isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

/**
 * Where the chunk after [start, end) starts: at a line (or, in prose, a word) start about `overlapChars`
 * before the end of the chunk's content (`contentEnd`, before trailing whitespace), else right after it.
 */
function nextStart(text: string, start: number, contentEnd: number, end: number, options: ChunkingOptions): number {
  if (options.overlapChars === 0) return end;
  const earliest = Math.max(start + 1, contentEnd - options.overlapChars);
  const lineEnd = text.slice(earliest - 1, contentEnd - 1).indexOf('\n');
  if (lineEnd >= 0) return earliest + lineEnd;
  if (options.style === 'code') return end;
  for (let position = earliest; position < contentEnd; position += 1) {
    if (isSpace(text.charCodeAt(position - 1)) && !isSpace(text.charCodeAt(position))) return position;
  }
  return end;
}

/**
 * The chunks of `text` from `from` on (the whole text by default), at most `limit` of them. Trailing and
 * leading whitespace is left out of each chunk (except the indentation of code); a text of only
 * whitespace has no chunks.
 */
export function* chunkText(text: string, options: ChunkingOptions, from: ChunkCursor = { index: 0, start: 0 }, limit = Infinity): Generator<Chunk> {
  let index = from.index;
  let start = contentStart(text, from.start, options.style);
  while (start < text.length && index - from.index < limit) {
    const end = chunkEnd(text, start, options);
    let contentEnd = end;
    while (contentEnd > start && isSpace(text.charCodeAt(contentEnd - 1))) contentEnd -= 1;
    yield { index, start, end: contentEnd, text: text.slice(start, contentEnd) };
    index += 1;
    if (end >= text.length) return;
    start = contentStart(text, nextStart(text, start, contentEnd, end, options), options.style);
  }
}

/** Splits the chunks into consecutive batches of `batchSize`, each with the cursor it resumes from. */
export function planChunkBatches(text: string, options: ChunkingOptions, batchSize: number): { totalChunks: number; batches: Array<ChunkCursor & { count: number }> } {
  const batches: Array<ChunkCursor & { count: number }> = [];
  let totalChunks = 0;
  for (const chunk of chunkText(text, options)) {
    if (chunk.index % batchSize === 0) batches.push({ index: chunk.index, start: chunk.start, count: 0 });
    batches.at(-1)!.count += 1;
    totalChunks += 1;
  }
  return { totalChunks, batches };
}

/** Namespace of the passage ids of file chunks (RFC 4122 name-based ids, SHA-1). */
const CHUNK_ID_NAMESPACE = Buffer.from('6d1f5c2a8b3e4f0a9c7d2e1b0a3f4c5d', 'hex');

/** The passage id of a file's chunk: the same for the same file and index, so a retried write finds it taken. */
export function chunkPassageId(fileId: string, index: number): string {
  const hash = createHash('sha1').update(CHUNK_ID_NAMESPACE).update(`${fileId}#${index}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `passage-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
