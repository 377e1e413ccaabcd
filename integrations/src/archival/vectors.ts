/** Scales a vector to unit length, so cosine similarity is a plain dot product. A zero vector stays zero. */
export function unitVector(components: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(components);
  let norm = 0;
  for (const component of vector) norm += component * component;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let index = 0; index < vector.length; index++) vector[index]! *= scale;
  }
  return vector;
}

export function dot(a: Float32Array, b: Float32Array): number {
  const length = Math.min(a.length, b.length);
  let sum = 0;
  for (let index = 0; index < length; index++) sum += a[index]! * b[index]!;
  return sum;
}

/** The stored form (`passages.embedding`): little-endian float32, written explicitly so it never depends on the host. */
export function encodeEmbedding(vector: Float32Array): Buffer {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((component, index) => buffer.writeFloatLE(component, index * 4));
  return buffer;
}

/** Whether this host stores a float32 as the stored form does, so decoding is a plain copy of the bytes. */
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function decodeEmbedding(buffer: Buffer): Float32Array {
  const vector = new Float32Array(Math.floor(buffer.length / 4));
  if (LITTLE_ENDIAN_HOST) {
    // One copy (the buffer may sit at any offset of a shared pool, so it cannot be viewed as floats in place).
    new Uint8Array(vector.buffer).set(buffer.subarray(0, vector.length * 4));
    return vector;
  }
  for (let index = 0; index < vector.length; index++) vector[index] = buffer.readFloatLE(index * 4);
  return vector;
}

/**
 * The stored form fetched as PostgreSQL's `encode(embedding, 'base64')`: a third less to send and parse than
 * bytea's default hex output, which matters when a search fetches hundreds of embeddings. The line breaks
 * PostgreSQL puts every 76 characters are skipped by Node's base64 decoder.
 */
export function decodeEmbeddingBase64(text: string): Float32Array {
  return decodeEmbedding(Buffer.from(text, 'base64'));
}
