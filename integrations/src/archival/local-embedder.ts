import type { EmbeddingConfig } from '@engram/db';

/**
 * Engram's built-in embedder, used when an agent or archive has no embedding provider. It is not a
 * neural model and does not pretend to be one: a text becomes signed, hashed counts of its words, word
 * pairs and character trigrams (the "hashing trick"), L2-normalized to 256 dimensions. Texts that share
 * words or word stems ("hiking" / "hikes") come out close; paraphrases with no words in common do not.
 * It needs no download and no network, and the same text always gives the same vector, so archival
 * search keeps working offline.
 */
export const LOCAL_EMBEDDING_DIM = 256;
export const LOCAL_EMBEDDING_ENDPOINT_TYPE = 'engram-local';
export const LOCAL_EMBEDDING_MODEL = 'hashed-ngram-256';
export const LOCAL_EMBEDDING_HANDLE = `engram/${LOCAL_EMBEDDING_MODEL}`;

export const LOCAL_EMBEDDING_CONFIG: EmbeddingConfig = {
  embedding_endpoint_type: LOCAL_EMBEDDING_ENDPOINT_TYPE,
  embedding_endpoint: null,
  embedding_model: LOCAL_EMBEDDING_MODEL,
  embedding_dim: LOCAL_EMBEDDING_DIM,
  embedding_chunk_size: 300,
  handle: LOCAL_EMBEDDING_HANDLE,
  batch_size: 32,
};

export function isLocalEmbeddingConfig(config: EmbeddingConfig | null | undefined): boolean {
  return !config || config.embedding_endpoint_type === LOCAL_EMBEDDING_ENDPOINT_TYPE;
}

/** Words this common say nothing about what a text is about; left in, they make unrelated texts look alike. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our she so that the their them then there these they this to was we were what when where which ' +
    'who why will with would you your'
  ).split(' '),
);

const WORD_WEIGHT = 1;
const WORD_PAIR_WEIGHT = 0.5;
/** Shared among a word's trigrams, so a long word counts no more than a short one. */
const TRIGRAMS_WEIGHT = 1;

/** FNV-1a, then MurmurHash3's finalizer so that the low bits (the dimension) and the top bit (the sign) are well mixed. */
function hash32(feature: string): number {
  let h = 0x811c9dc5;
  for (let index = 0; index < feature.length; index++) {
    h ^= feature.charCodeAt(index);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function contentWords(text: string): string[] {
  const words = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((word) => !STOP_WORDS.has(word));
}

/**
 * A crude English suffix stripper ("hike", "hiking", "hikes" and "hiked" → "hik"; "mountains" → "mountain"),
 * so word features match across inflections. Over-stripping only merges rare cousins.
 */
function stem(word: string): string {
  let base = word;
  for (const suffix of ['ingly', 'edly', 'ing', 'ies', 'ied', 'ed', 'es', 'ly', 's']) {
    if (base.endsWith(suffix) && !base.endsWith('ss') && base.length - suffix.length >= 3) {
      base = base.slice(0, -suffix.length);
      break;
    }
  }
  // "hike" and "hiking" meet at "hik".
  return base.length > 3 && base.endsWith('e') ? base.slice(0, -1) : base;
}

function addFeature(weights: Map<string, number>, feature: string, weight: number): void {
  weights.set(feature, (weights.get(feature) ?? 0) + weight);
}

/** The embedding of one text: unit length, or all zeros for a text without a content word. */
export function embedLocally(text: string): Float32Array {
  const words = contentWords(text);
  const stems = words.map(stem);
  const weights = new Map<string, number>();
  words.forEach((word, index) => {
    addFeature(weights, `w:${stems[index]}`, WORD_WEIGHT);
    if (index > 0) addFeature(weights, `p:${stems[index - 1]} ${stems[index]}`, WORD_PAIR_WEIGHT);
    const padded = `#${word}#`;
    const trigramCount = padded.length - 2;
    for (let start = 0; start < trigramCount; start++) addFeature(weights, `c:${padded.slice(start, start + 3)}`, TRIGRAMS_WEIGHT / trigramCount);
  });

  const vector = new Float32Array(LOCAL_EMBEDDING_DIM);
  for (const [feature, weight] of weights) {
    const h = hash32(feature);
    // Square-root damping: a word said ten times is more important than one said once, but not ten times more.
    vector[h % LOCAL_EMBEDDING_DIM]! += (h & 0x80000000 ? -1 : 1) * Math.sqrt(weight);
  }
  let norm = 0;
  for (const component of vector) norm += component * component;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let index = 0; index < vector.length; index++) vector[index]! *= scale;
  }
  return vector;
}
