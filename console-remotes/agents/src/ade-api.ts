import { sendJson, V1_API, v1AuthHeaders, type RequestOptions, type Tool } from '@engram/console-kit';

/*
 * `/v1` calls only the agent development environment makes, beside the kit's client: they live in
 * this remote so they add nothing to the JavaScript the shell loads before sign-in.
 */

const v1Json = <T>(path: string, options: RequestOptions = {}) => sendJson<T>(`${V1_API}${path}`, { ...options, headers: { ...options.headers, ...v1AuthHeaders() } });

/** The parts of a tool the sandbox needs to run it, which the kit's `Tool` leaves out. */
export type RunnableTool = Tool & {
  source_code?: string | null;
  source_type?: string | null;
  pip_requirements?: unknown[] | null;
  npm_requirements?: unknown[] | null;
};

/** `ToolExecutionResult`, as `POST /v1/tools/run` answers it (inside a `tool_return_message`). */
export type ToolExecutionResult = {
  status: 'success' | 'error';
  func_return?: unknown;
  stdout?: string[] | null;
  stderr?: string[] | null;
};

/**
 * Runs a saved tool's source in the organization's sandbox, saving nothing. The server has no
 * `POST /agents/{id}/tools/{name}/run` yet, so the run does not see the agent's own variables.
 */
export function runToolSource(tool: RunnableTool, args: Record<string, unknown>): Promise<ToolExecutionResult> {
  return v1Json<ToolExecutionResult>('/tools/run', {
    method: 'POST',
    json: {
      source_code: tool.source_code,
      source_type: tool.source_type ?? null,
      name: tool.name,
      json_schema: tool.json_schema,
      pip_requirements: tool.pip_requirements ?? null,
      npm_requirements: tool.npm_requirements ?? null,
      args,
    },
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
