import { describe, expect, it } from 'vitest';
import { embedLocally, isLocalEmbeddingConfig, LOCAL_EMBEDDING_CONFIG, LOCAL_EMBEDDING_DIM, LOCAL_EMBEDDING_HANDLE } from './local-embedder.js';
import { dot } from './vectors.js';

const similarity = (a: string, b: string) => dot(embedLocally(a), embedLocally(b));

describe('the local embedder', () => {
  it('is deterministic, unit length and 256-dimensional', () => {
    const first = embedLocally('The user prefers green tea in the morning.');
    expect(first).toHaveLength(LOCAL_EMBEDDING_DIM);
    expect(embedLocally('The user prefers green tea in the morning.')).toEqual(first);
    expect(dot(first, first)).toBeCloseTo(1, 5);
  });

  it('ignores case, accents and punctuation', () => {
    expect(similarity('Café au lait!', 'cafe AU LAIT')).toBeCloseTo(1, 5);
  });

  it('puts texts that share words or word stems closer than unrelated texts', () => {
    const hiking = 'I love hiking in the mountains';
    expect(similarity(hiking, 'She enjoys mountain hikes every weekend')).toBeGreaterThan(similarity(hiking, 'The quarterly tax report is due on Friday') + 0.1);
    const color = 'My favorite color is blue';
    expect(similarity(color, 'favourite colour: blue')).toBeGreaterThan(similarity(color, 'The dog barked at the mailman') + 0.2);
  });

  it('gives a zero vector for a text without content words', () => {
    expect(Array.from(embedLocally('the of and'))).toEqual(new Array(LOCAL_EMBEDDING_DIM).fill(0));
  });

  it('is what an absent or engram-local embedding config means', () => {
    expect(isLocalEmbeddingConfig(null)).toBe(true);
    expect(isLocalEmbeddingConfig(LOCAL_EMBEDDING_CONFIG)).toBe(true);
    expect(isLocalEmbeddingConfig({ ...LOCAL_EMBEDDING_CONFIG, embedding_endpoint_type: 'openai' })).toBe(false);
    expect(LOCAL_EMBEDDING_CONFIG).toMatchObject({ handle: LOCAL_EMBEDDING_HANDLE, embedding_dim: 256, embedding_endpoint_type: 'engram-local' });
  });
});
