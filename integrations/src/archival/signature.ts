/**
 * Random-hyperplane signatures (SimHash, Charikar 2002) for vector search without pgvector. Bit i of a
 * signature says on which side of hyperplane i the embedding lies; two embeddings at angle θ differ in
 * each bit with probability θ/π, so the Hamming distance between signatures estimates their angle.
 * PostgreSQL computes it as `bit_count(a # b)` over a `bit(1024)` column; a search scans an archive's
 * signatures, keeps the nearest few hundred and re-ranks those exactly by cosine.
 *
 * Why 1024 bits: the estimate's error shrinks with the square root of the bit count, and archival
 * similarities are modest (0.2–0.5 for related texts under the local embedder), so a coarse estimate
 * shortlists the wrong passages. On the 100k-passage corpus of bench/archival-search.ts, recall@10 after the
 * exact re-rank of a 400-passage shortlist is 0.36 with 256 bits and 0.86 with 1024, while the scan costs
 * about the same: it is bound by rows (and the top-N sort), not by bits.
 *
 * The hyperplanes come from a fixed seed per dimension: they are part of the stored format. Changing the
 * seed, the generator or SIGNATURE_BITS means recomputing every row of `passage_vectors`.
 */
export const SIGNATURE_BITS = 1024;

const SEED = 0x5eed_a7c1;

/** mulberry32: small, fast and deterministic; statistical quality is ample for drawing hyperplanes. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * SIGNATURE_BITS Gaussian hyperplane normals of `dim` components (Box–Muller), stored component-major
 * (`planes[component * SIGNATURE_BITS + bit]`) so a sparse embedding skips its zero components.
 */
function hyperplanes(dim: number): Float32Array {
  const random = randomSource(SEED ^ Math.imul(dim, 0x9e3779b1));
  const planes = new Float32Array(SIGNATURE_BITS * dim);
  for (let index = 0; index < planes.length; index += 2) {
    const radius = Math.sqrt(-2 * Math.log(1 - random()));
    const angle = 2 * Math.PI * random();
    planes[index] = radius * Math.cos(angle);
    if (index + 1 < planes.length) planes[index + 1] = radius * Math.sin(angle);
  }
  return planes;
}

export type SignatureHasher = {
  /** The signature as a PostgreSQL `bit(1024)` literal in hexadecimal: `x` and 256 hex digits. */
  signature(vector: Float32Array): string;
};

/** Keeps the hyperplanes of each dimension it has seen (1024 × dim floats), so build one per process. */
export function createSignatureHasher(): SignatureHasher {
  const planesByDim = new Map<number, Float32Array>();
  return {
    signature(vector) {
      const dim = vector.length;
      let planes = planesByDim.get(dim);
      if (!planes) {
        planes = hyperplanes(dim);
        planesByDim.set(dim, planes);
      }
      const sides = new Float64Array(SIGNATURE_BITS);
      for (let component = 0; component < dim; component++) {
        const value = vector[component]!;
        if (value === 0) continue;
        const offset = component * SIGNATURE_BITS;
        for (let bit = 0; bit < SIGNATURE_BITS; bit++) sides[bit]! += value * planes[offset + bit]!;
      }
      let hex = 'x';
      for (let nibble = 0; nibble < SIGNATURE_BITS; nibble += 4) {
        const digit = (sides[nibble]! >= 0 ? 8 : 0) | (sides[nibble + 1]! >= 0 ? 4 : 0) | (sides[nibble + 2]! >= 0 ? 2 : 0) | (sides[nibble + 3]! >= 0 ? 1 : 0);
        hex += digit.toString(16);
      }
      return hex;
    },
  };
}
