export type SearchMode = 'vector' | 'fts' | 'hybrid';

/** Reciprocal-rank fusion's k: 60, as in Cormack et al. and the reference server's hybrid search. */
export const RRF_K = 60;

export type FusedRank = {
  id: string;
  /** 1-based position in the full-text ranking, null when the item is not in it. */
  ftsRank: number | null;
  /** 1-based position in the vector ranking, null when the item is not in it. */
  vectorRank: number | null;
  /** Σ weight / (k + rank) over the rankings used; hybrid weighs both 0.5, as the reference server does. */
  rrfScore: number;
};

/**
 * Fuses the full-text and vector rankings (ids, best first) that `mode` uses into one ranking, best first.
 * Ties keep the vector ranking's order, then the full-text ranking's.
 */
export function fuseRankings(mode: SearchMode, rankings: { fts: string[]; vector: string[] }): FusedRank[] {
  const weight = mode === 'hybrid' ? 0.5 : 1;
  const fused = new Map<string, FusedRank>();
  const entry = (id: string) => {
    let found = fused.get(id);
    if (!found) {
      found = { id, ftsRank: null, vectorRank: null, rrfScore: 0 };
      fused.set(id, found);
    }
    return found;
  };
  if (mode !== 'fts') {
    rankings.vector.forEach((id, index) => {
      const item = entry(id);
      item.vectorRank = index + 1;
      item.rrfScore += weight / (RRF_K + index + 1);
    });
  }
  if (mode !== 'vector') {
    rankings.fts.forEach((id, index) => {
      const item = entry(id);
      item.ftsRank = index + 1;
      item.rrfScore += weight / (RRF_K + index + 1);
    });
  }
  return [...fused.values()].sort((a, b) => b.rrfScore - a.rrfScore);
}

/** Turns free text into an OR of its words for `websearch_to_tsquery`, so a passage matching any word is a candidate. */
export function anyWordQuery(text: string): string {
  // A literal "or" would read as the operator; it is a stop word, so dropping it loses nothing.
  const words = (text.match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.toLowerCase() !== 'or');
  return words.join(' or ');
}
