import { createHash } from 'node:crypto';

/**
 * A unit-length vector that depends only on `text` and `dimension`: stretches of SHA-256
 * digests of the text, mapped into [-1, 1] and normalized.
 */
export function embeddingFor(text: string, dimension: number): number[] {
  const components: number[] = [];
  for (let block = 0; components.length < dimension; block++) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (let offset = 0; offset < digest.length && components.length < dimension; offset += 4) {
      components.push((digest.readUInt32LE(offset) / 0xffffffff) * 2 - 1);
    }
  }
  const length = Math.sqrt(components.reduce((sum, component) => sum + component * component, 0));
  return components.map((component) => component / length);
}

/** The `encoding_format: 'base64'` form: little-endian float32s, which the openai SDK requests by default. */
export function encodeAsBase64Floats(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * Float32Array.BYTES_PER_ELEMENT);
  vector.forEach((component, index) => bytes.writeFloatLE(component, index * Float32Array.BYTES_PER_ELEMENT));
  return bytes.toString('base64');
}
