import { describe, expect, it } from 'vitest';
import { decodeEmbedding, decodeEmbeddingBase64, encodeEmbedding, unitVector } from './vectors.js';

describe('stored embeddings', () => {
  const vector = unitVector(Array.from({ length: 256 }, (_, index) => Math.sin(index * 1.7) - 0.1));

  it('are little-endian float32 and decode to the same floats, from a buffer at any offset', () => {
    const stored = encodeEmbedding(vector);
    expect(stored.length).toBe(1024);
    expect(stored.readFloatLE(4)).toBe(vector[1]);
    expect(decodeEmbedding(stored)).toEqual(vector);
    // A buffer that is a slice of a larger one, at an offset not divisible by four.
    const backing = Buffer.alloc(stored.length + 1);
    stored.copy(backing, 1);
    const shifted = backing.subarray(1);
    expect(shifted.byteOffset % 4).toBe(1);
    expect(decodeEmbedding(shifted)).toEqual(vector);
  });

  it("decode from PostgreSQL's base64, line breaks every 76 characters included", () => {
    const base64 = encodeEmbedding(vector).toString('base64').replace(/(.{76})/g, '$1\n');
    expect(base64).toContain('\n');
    expect(decodeEmbeddingBase64(base64)).toEqual(vector);
  });
});
