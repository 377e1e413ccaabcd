import { describeSemanticMatches } from '@engram/core';
import { Source, markFilesAccessed, type Database } from '@engram/db';
import { ModelCallError } from '../llm/index.js';
import type { PassageStore } from '../archival/passage-store.js';

export const SEMANTIC_SEARCH_FILES = 'semantic_search_files';

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 50;

export type SemanticSearchFilesCall = { organizationId: string; agentId: string; arguments: Record<string, unknown>; signal?: AbortSignal };

export type SemanticSearchFilesResult = { status: 'success' | 'error'; funcResponse: string };

/**
 * semantic_search_files: the chunks of the agent's attached folders closest to the query. It runs in the tool
 * activity, not inline in the step, because embedding the query may call a provider. A bad argument or a
 * failing embedding provider is an error result for the model; only faults of the platform itself throw.
 */
export function createSemanticSearchFiles(deps: { db: Database; passages: PassageStore }) {
  const { db, passages } = deps;
  const fail = (message: string): SemanticSearchFilesResult => ({
    status: 'error',
    funcResponse: `Error executing function ${SEMANTIC_SEARCH_FILES}: ${message}`,
  });

  return async function semanticSearchFiles(call: SemanticSearchFilesCall): Promise<SemanticSearchFilesResult> {
    const { organizationId, agentId } = call;
    const query = call.arguments.query;
    if (typeof query !== 'string' || query.trim() === '') return fail("'query' must be a non-empty string");
    const limit = call.arguments.limit ?? DEFAULT_LIMIT;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) return fail("'limit' must be a positive integer");

    const sources = await Source.query(db)
      .forOrg(organizationId)
      .join('sources_agents', 'sources_agents.source_id', 'sources.id')
      .where('sources_agents.agent_id', agentId)
      .select('sources.id', 'sources.embeddingConfig');
    if (sources.length === 0) return { status: 'success', funcResponse: 'No folders are attached to search' };

    let ranked;
    try {
      ranked = await passages.searchSources({
        organizationId,
        sources: sources.map((source) => ({ id: source.id, embeddingConfig: source.embeddingConfig })),
        query,
        // Hybrid, like archival search: the vector ranking finds passages by meaning, and the word ranking keeps
        // exact names and identifiers from being missed by an embedder that does not know them.
        mode: 'hybrid',
        limit: Math.min(limit, MAX_LIMIT),
        ...(call.signal ? { signal: call.signal } : {}),
      });
    } catch (error) {
      if (error instanceof ModelCallError) return fail(error.message);
      throw error;
    }
    const fileIds = [...new Set(ranked.map((item) => item.passage.fileId).filter((id): id is string => id !== null))];
    // A file the agent found is one it is about to use: the last to be closed to make room for others.
    await markFilesAccessed(db, organizationId, agentId, fileIds, new Date());
    const matches = ranked.map((item) => ({ fileName: item.passage.fileName ?? 'unknown file', text: item.passage.text, similarity: item.similarity }));
    return { status: 'success', funcResponse: describeSemanticMatches(query, matches) };
  };
}
