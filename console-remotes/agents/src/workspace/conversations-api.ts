import { readSse, sendJson, send, V1_API, v1AuthHeaders, type RequestOptions, type Run, type SendMessagesBody, type V1Client, type Wire, type WireMessage } from '@engram/console-kit';
import { agentKeys } from '../queries.js';

/*
 * `/v1/conversations` calls of the agent development environment's chat: an agent's conversations, each a thread with
 * its own context window beside the agent's own history (the default conversation, which keeps the agent's routes).
 */

export type Conversation = Wire.Conversation;

const v1Request = (path: string, options: RequestOptions = {}) => send(`${V1_API}${path}`, { ...options, headers: { ...options.headers, ...v1AuthHeaders() } });
const v1Json = <T>(path: string, options: RequestOptions = {}) => sendJson<T>(`${V1_API}${path}`, { ...options, headers: { ...options.headers, ...v1AuthHeaders() } });
const conversationPath = (conversationId: string, rest = '') => `/conversations/${encodeURIComponent(conversationId)}${rest}`;

export const conversationKeys = {
  /** Under the agent's live keys: a turn moves a conversation's `last_message_at`. */
  all: (v1: V1Client, agentId: string) => [...agentKeys.live(v1, agentId), 'conversations'] as const,
  list: (v1: V1Client, agentId: string, showArchived: boolean) => [...conversationKeys.all(v1, agentId), { showArchived }] as const,
};

/** The agent's conversations, most recently messaged first; archived ones only when asked for. */
export function listConversations(agentId: string, showArchived: boolean): Promise<Conversation[]> {
  return v1Json<Conversation[]>('/conversations/', {
    query: { agent_id: agentId, order_by: 'last_message_at', order: 'desc', limit: 100, archive_status: showArchived ? 'all' : 'unarchived' },
  });
}

export function retrieveConversation(conversationId: string): Promise<Conversation> {
  return v1Json<Conversation>(conversationPath(conversationId));
}

export function createConversation(agentId: string): Promise<Conversation> {
  return v1Json<Conversation>('/conversations/', { method: 'POST', query: { agent_id: agentId }, json: {} });
}

/** Renames (`summary`, null for unnamed) or archives a conversation. */
export function updateConversation(conversationId: string, change: { summary?: string | null; archived?: boolean }): Promise<Conversation> {
  return v1Json<Conversation>(conversationPath(conversationId), { method: 'PATCH', json: change });
}

export function listConversationMessages(conversationId: string, params: { limit: number; before?: string }): Promise<WireMessage[]> {
  return v1Json<WireMessage[]>(conversationPath(conversationId, '/messages'), { query: params });
}

/** Sends to a conversation and streams its run, as `POST /agents/{id}/messages/stream` does for the default one. */
export async function* streamConversationMessages(conversationId: string, body: SendMessagesBody, signal?: AbortSignal): AsyncGenerator<WireMessage> {
  const response = await v1Request(conversationPath(conversationId, '/messages'), { method: 'POST', json: { ...body, streaming: true }, signal });
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

/** What the list and the chat call a conversation: its name, else that it has none. */
export function conversationName(conversation: Pick<Conversation, 'summary'>): string {
  return conversation.summary?.trim() || 'Untitled conversation';
}

/** The runs of one conversation (their stop reasons and errors go beside its messages). */
export function listConversationRuns(agentId: string, conversationId: string, limit: number): Promise<Run[]> {
  return v1Json<Run[]>('/runs/', { query: { agent_id: agentId, conversation_id: conversationId, limit } });
}

/** Cancels the running turns of one conversation of the agent (null: its own history); its other conversations go on. */
export function cancelConversation(agentId: string, conversationId: string | null): Promise<unknown> {
  return v1Json<unknown>(conversationPath(conversationId ?? 'default', '/cancel'), { method: 'POST', query: { agent_id: agentId } });
}
