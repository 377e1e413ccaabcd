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

export function decodeEmbedding(buffer: Buffer): Float32Array {
  const vector = new Float32Array(buffer.length / 4);
  for (let index = 0; index < vector.length; index++) vector[index] = buffer.readFloatLE(index * 4);
  return vector;
}
