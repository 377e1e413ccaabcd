import { describe, expect, it } from 'vitest';
import { chunkingOptions, chunkText, planChunkBatches, type Chunk, type ChunkingOptions } from './chunker.js';

const prose = (paragraphs: number) =>
  Array.from({ length: paragraphs }, (_, paragraph) =>
    Array.from({ length: 6 }, (_, sentence) => `Paragraph ${paragraph} sentence ${sentence} talks about lemon trees and the weather in Porto.`).join(' '),
  ).join('\n\n');

const code = (functions: number) =>
  Array.from(
    { length: functions },
    (_, index) => `function handler${index}(request) {\n  const value = request.body.items[${index}];\n  return { status: 200, value };\n}\n`,
  ).join('\n');

const all = (text: string, options: ChunkingOptions) => [...chunkText(text, options)];

/** Every non-space character of the text lies inside some chunk. */
function expectCovered(text: string, chunks: Chunk[]): void {
  const covered = new Uint8Array(text.length);
  for (const chunk of chunks) covered.fill(1, chunk.start, chunk.end);
  const missed = [...text].filter((character, index) => !covered[index] && character.trim() !== '');
  expect(missed).toEqual([]);
}

describe('chunking options', () => {
  it("take the folder's chunk size in tokens at four characters each, with a 50-token overlap", () => {
    expect(chunkingOptions({ style: 'prose' })).toEqual({ maxChars: 1200, overlapChars: 200, style: 'prose' });
    expect(chunkingOptions({ chunkTokens: 512, style: 'code' })).toEqual({ maxChars: 2048, overlapChars: 200, style: 'code' });
  });

  it('keep the overlap within a quarter of a chunk and raise tiny sizes to a useful minimum', () => {
    expect(chunkingOptions({ chunkTokens: 100, style: 'prose' })).toEqual({ maxChars: 400, overlapChars: 100, style: 'prose' });
    expect(chunkingOptions({ chunkTokens: 2, style: 'prose' })).toEqual({ maxChars: 64, overlapChars: 16, style: 'prose' });
    expect(chunkingOptions({ chunkTokens: 0, style: 'prose' }).maxChars).toBe(1200);
  });
});

describe('the chunker', () => {
  const options = chunkingOptions({ chunkTokens: 100, style: 'prose' });

  it('gives a short text as one chunk, trimmed, and whitespace as none', () => {
    expect(all('  A short note.\n\n', options)).toEqual([{ index: 0, start: 2, end: 15, text: 'A short note.' }]);
    expect(all(' \n\t \n', options)).toEqual([]);
    expect(all('', options)).toEqual([]);
  });

  it('cuts prose at sentence ends, keeps chunks within the size, overlaps them and covers the whole text', () => {
    const text = prose(12);
    const chunks = all(text, options);
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.map((chunk) => chunk.index)).toEqual(chunks.map((_, index) => index));
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(options.maxChars);
      expect(chunk.text).toBe(text.slice(chunk.start, chunk.end));
      expect(chunk.text).toBe(chunk.text.trim());
    }
    for (const chunk of chunks.slice(0, -1)) expect(chunk.text).toMatch(/\.$/);
    for (const [previous, next] of chunks.slice(1).map((chunk, index) => [chunks[index]!, chunk] as const)) {
      expect(next.start).toBeGreaterThan(previous.start);
      expect(next.start).toBeLessThan(previous.end);
      expect(previous.end - next.start).toBeLessThanOrEqual(options.overlapChars);
      // The overlap starts at a word, not in the middle of one.
      expect(text[next.start - 1]).toMatch(/\s/);
    }
    expectCovered(text, chunks);
  });

  it('prefers a paragraph break to a sentence end', () => {
    const text = `${'Short sentence here. '.repeat(12).trim()}\n\n${'Another paragraph follows. '.repeat(10).trim()}`;
    const [first] = all(text, options);
    expect(first!.text).toBe('Short sentence here. '.repeat(12).trim());
  });

  it('cuts code at line ends and starts every chunk at the start of a line', () => {
    const text = code(30);
    const codeOptions = chunkingOptions({ chunkTokens: 100, style: 'code' });
    const chunks = all(text, codeOptions);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(codeOptions.maxChars);
      expect(chunk.start === 0 || text[chunk.start - 1] === '\n').toBe(true);
      expect(chunk.end === text.trimEnd().length || text[chunk.end] === '\n').toBe(true);
    }
    expectCovered(text, chunks);
  });

  it('cuts a text with no boundaries at the size limit, never between the halves of a surrogate pair', () => {
    // The leading letter puts every 100th code unit on the first half of an emoji.
    const text = `a${'😀'.repeat(500)}`;
    const chunks = all(text, chunkingOptions({ chunkTokens: 25, style: 'prose' }));
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(100);
      expect(chunk.text).toMatch(/^a?(😀)+$/u);
    }
    expect(chunks.reduce((total, chunk) => total + chunk.text.length, 0)).toBe(text.length);
  });

  it('resumes from any chunk exactly as a full pass continues from it', () => {
    const text = prose(20);
    const chunks = all(text, options);
    for (const from of [1, 7, chunks.length - 1]) {
      const cursor = { index: chunks[from]!.index, start: chunks[from]!.start };
      expect([...chunkText(text, options, cursor, 3)]).toEqual(chunks.slice(from, from + 3));
    }
  });

  it('plans batches whose cursors resume at the right chunks and add up to the total', () => {
    const text = prose(20);
    const chunks = all(text, options);
    const plan = planChunkBatches(text, options, 4);
    expect(plan.totalChunks).toBe(chunks.length);
    expect(plan.batches.reduce((total, batch) => total + batch.count, 0)).toBe(chunks.length);
    const rebuilt = plan.batches.flatMap((batch) => [...chunkText(text, options, batch, batch.count)]);
    expect(rebuilt).toEqual(chunks);
    expect(planChunkBatches('   ', options, 4)).toEqual({ totalChunks: 0, batches: [] });
  });

  it('chunks a 5 MB text without sentences in linear time', () => {
    const text = 'word '.repeat(1_000_000);
    const started = performance.now();
    const plan = planChunkBatches(text, chunkingOptions({ style: 'prose' }), 128);
    expect(plan.totalChunks).toBeGreaterThan(4000);
    // Quadratic scanning would take minutes here; linear takes well under a second even on a busy machine.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
