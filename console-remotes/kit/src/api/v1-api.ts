import { send, type RequestOptions } from './http.js';
import { readSse } from './sse.js';
import { v1AuthHeaders } from './v1-auth.js';
import type { Agent, Block, ContextWindow, CreateAgent, Model, Passage, Run, Tool, UpdateAgent, UsageStatistics, WireMessage } from './v1-types.js';

export type { UpdateAgent } from './v1-types.js';

export const V1_API = '/v1';

type ListParams = { limit?: number; after?: string; before?: string; order?: 'asc' | 'desc' };

export type SendMessagesBody = {
  messages: Array<
    | { role: 'user'; content: string; otid?: string }
    | { type: 'approval'; approvals: Array<{ type: 'approval'; tool_call_id: string; approve: boolean; reason?: string | null }> }
  >;
  stream_tokens?: boolean;
  include_pings?: boolean;
};

/** Frames of a run's stream, parsed; ends at `[DONE]` or when the connection ends. */
async function* frames(response: Response, signal?: AbortSignal): AsyncGenerator<WireMessage> {
  if (!response.body) return;
  for await (const event of readSse(response.body, signal)) {
    if (event.data === '[DONE]') return;
    try {
      yield JSON.parse(event.data) as WireMessage;
    } catch {
      // A frame that is not JSON is not ours to show.
    }
  }
}

/**
 * The `/v1` agent API as the signed-in user, in their active organization (the session decides
 * it; the id keys the query cache), authenticated by `v1AuthHeaders`.
 */
export function createV1Client(organizationId: string) {
  function request(path: string, options: RequestOptions = {}): Promise<Response> {
    return send(`${V1_API}${path}`, { ...options, headers: { ...options.headers, ...v1AuthHeaders() } });
  }
  async function json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const text = await (await request(path, options)).text();
    return (text ? JSON.parse(text) : null) as T;
  }
  const agentPath = (agentId: string, suffix = '') => `/agents/${encodeURIComponent(agentId)}${suffix}`;

  return {
    organizationId,

    listAgents: (params: ListParams & { project_id?: string; query_text?: string; tags?: string[]; match_all_tags?: boolean }) =>
      json<Agent[]>('/agents/', { query: { ...params, include: ['agent.tags'] } }),
    countAgents: (params: { project_id?: string; query_text?: string; tags?: string[] }) => json<number>('/agents/count', { query: params }),
    getAgent: (agentId: string) => json<Agent>(agentPath(agentId), { query: { include: ['agent.blocks', 'agent.tools', 'agent.tags'] } }),
    createAgent: (body: CreateAgent) => json<Agent>('/agents/', { method: 'POST', json: body }),
    updateAgent: (agentId: string, body: UpdateAgent) => json<Agent>(agentPath(agentId), { method: 'PATCH', json: body }),
    deleteAgent: (agentId: string) => request(agentPath(agentId), { method: 'DELETE' }),

    listModels: () => json<Model[]>('/models/'),
    listTags: (params: ListParams & { query_text?: string } = {}) => json<string[]>('/tags/', { query: params }),

    listMessages: (agentId: string, params: ListParams = {}) => json<WireMessage[]>(agentPath(agentId, '/messages'), { query: params }),
    /** Starts a run and streams it (`stream_tokens` for token deltas). */
    async *streamMessages(agentId: string, body: SendMessagesBody, signal?: AbortSignal): AsyncGenerator<WireMessage> {
      const response = await request(agentPath(agentId, '/messages/stream'), { method: 'POST', json: body, signal });
      yield* frames(response, signal);
    },
    /** Replays a run's stream after `startingAfter` (a `seq_id`) and follows it to the end. */
    async *resumeRun(runId: string, startingAfter: number, signal?: AbortSignal): AsyncGenerator<WireMessage> {
      const response = await request(`/runs/${encodeURIComponent(runId)}/stream`, {
        method: 'POST',
        json: { starting_after: startingAfter, include_pings: true },
        signal,
      });
      yield* frames(response, signal);
    },
    cancelRuns: (agentId: string, runIds?: string[]) =>
      json<unknown>(agentPath(agentId, '/messages/cancel'), { method: 'POST', json: runIds ? { run_ids: runIds } : {} }),

    listRuns: (params: ListParams & { agent_id?: string; active?: boolean }) => json<Run[]>('/runs/', { query: params }),
    runUsage: (runId: string) => json<UsageStatistics>(`/runs/${encodeURIComponent(runId)}/usage`),

    listBlocks: (agentId: string) => json<Block[]>(agentPath(agentId, '/core-memory/blocks/')),
    updateBlock: (agentId: string, label: string, body: { value?: string; limit?: number; description?: string }) =>
      json<Block>(agentPath(agentId, `/core-memory/blocks/${encodeURIComponent(label)}`), { method: 'PATCH', json: body }),

    listTools: (params: ListParams & { search?: string } = {}) => json<Tool[]>('/tools/', { query: params }),
    listAgentTools: (agentId: string) => json<Tool[]>(agentPath(agentId, '/tools/'), { query: { limit: 100 } }),
    attachTool: (agentId: string, toolId: string) =>
      request(agentPath(agentId, `/tools/attach/${encodeURIComponent(toolId)}`), { method: 'PATCH' }),
    detachTool: (agentId: string, toolId: string) =>
      request(agentPath(agentId, `/tools/detach/${encodeURIComponent(toolId)}`), { method: 'PATCH' }),
    setToolApproval: (agentId: string, toolName: string, requiresApproval: boolean) =>
      request(agentPath(agentId, `/tools/approval/${encodeURIComponent(toolName)}`), { method: 'PATCH', json: { requires_approval: requiresApproval } }),

    context: (agentId: string) => json<ContextWindow>(agentPath(agentId, '/context')),

    listPassages: (agentId: string, params: { search?: string; limit?: number; after?: string; ascending?: boolean } = {}) =>
      json<Passage[]>(agentPath(agentId, '/archival-memory'), { query: params }),
    insertPassage: (agentId: string, body: { text: string; tags?: string[] }) =>
      json<Passage[]>(agentPath(agentId, '/archival-memory'), { method: 'POST', json: body }),
    deletePassage: (agentId: string, passageId: string) =>
      request(agentPath(agentId, `/archival-memory/${encodeURIComponent(passageId)}`), { method: 'DELETE' }),
  };
}

export type V1Client = ReturnType<typeof createV1Client>;
