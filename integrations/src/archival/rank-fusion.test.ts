import { describe, expect, it } from 'vitest';
import { anyWordQuery, fuseRankings, RRF_K } from './rank-fusion.js';

describe('reciprocal-rank fusion', () => {
  it('weighs both rankings 0.5 in hybrid mode and orders by the fused score', () => {
    const fused = fuseRankings('hybrid', { fts: ['a', 'b'], vector: ['b', 'c'] });
    expect(fused.map((item) => item.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]).toEqual({ id: 'b', ftsRank: 2, vectorRank: 1, rrfScore: 0.5 / (RRF_K + 2) + 0.5 / (RRF_K + 1) });
    expect(fused[1]).toEqual({ id: 'a', ftsRank: 1, vectorRank: null, rrfScore: 0.5 / (RRF_K + 1) });
  });

  it('uses only the ranking of a single mode, at full weight', () => {
    expect(fuseRankings('fts', { fts: ['a'], vector: ['b'] })).toEqual([{ id: 'a', ftsRank: 1, vectorRank: null, rrfScore: 1 / (RRF_K + 1) }]);
    expect(fuseRankings('vector', { fts: ['a'], vector: ['b'] })).toEqual([{ id: 'b', ftsRank: null, vectorRank: 1, rrfScore: 1 / (RRF_K + 1) }]);
  });
});

describe('anyWordQuery', () => {
  it('ORs the words of free text for websearch_to_tsquery, dropping operators and punctuation', () => {
    expect(anyWordQuery('cats OR "dogs" -fish (birds)')).toBe('cats or dogs or fish or birds');
    expect(anyWordQuery('  !? ')).toBe('');
  });
});
