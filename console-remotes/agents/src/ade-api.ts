import { sendJson, V1_API, v1AuthHeaders, type RequestOptions, type Tool } from '@engram/console-kit';

/*
 * `/v1` calls only the agent development environment makes, beside the kit's client: they live in
 * this remote so they add nothing to the JavaScript the shell loads before sign-in.
 */

const v1Json = <T>(path: string, options: RequestOptions = {}) => sendJson<T>(`${V1_API}${path}`, { ...options, headers: { ...options.headers, ...v1AuthHeaders() } });

/** `ToolExecutionResult` of `POST /agents/{id}/tools/{name}/run`. */
export type ToolExecutionResult = {
  status: 'success' | 'error';
  func_return?: unknown;
  stdout?: string[] | null;
  stderr?: string[] | null;
};

/** Built-ins that edit memory or open files run only inside a turn; these run on their own too (the server says the same). */
const RUNNABLE_BUILT_INS = new Set(['archival_memory_insert', 'archival_memory_search', 'semantic_search_files']);

export function canRunOnItsOwn(tool: Tool): boolean {
  return tool.tool_type === 'custom' || tool.tool_type === 'external_mcp' || RUNNABLE_BUILT_INS.has(tool.name);
}

/** Runs one of the agent's tools as the agent would: with its secrets, archives and folders, outside any turn. */
export function runAgentTool(agentId: string, toolName: string, args: Record<string, unknown>): Promise<ToolExecutionResult> {
  return v1Json<ToolExecutionResult>(`/agents/${encodeURIComponent(agentId)}/tools/${encodeURIComponent(toolName)}/run`, {
    method: 'POST',
    json: { args },
  });
}

export type ArchivalSearch = { query: string; tags: string[]; tagMatchMode: 'any' | 'all' };

/** One hit of `GET /agents/{id}/archival-memory/search`; `timestamp` is in the agent's timezone. */
export type ArchivalSearchResult = { id: string; content: string; timestamp: string; tags: string[] | null };

/** Hybrid (meaning and words) search over the agent's archival memory, best first. */
export function searchArchivalMemory(agentId: string, search: ArchivalSearch, topK: number) {
  return v1Json<{ results: ArchivalSearchResult[]; count: number }>(`/agents/${encodeURIComponent(agentId)}/archival-memory/search`, {
    query: { query: search.query, tags: search.tags, tag_match_mode: search.tagMatchMode, top_k: topK },
  });
}
