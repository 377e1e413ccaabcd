import { wallClockMs } from './stats.js';

/** Long enough for any send on a loaded 2-core machine; short enough that a dead worker fails the bench. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The scripted model's one answer; a send whose reply differs went wrong. */
export const SCRIPTED_REPLY = 'ok';

export type SyncSendResult = { runId: string; sentAtMs: number; receivedAtMs: number };

export type StreamSendResult = {
  sentAtMs: number;
  firstByteAtMs: number;
  firstAssistantFrameAtMs: number;
  doneAtMs: number;
};

export type EngramHttpClient = ReturnType<typeof createEngramHttpClient>;

async function failure(response: Response, what: string): Promise<Error> {
  return new Error(`${what} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
}

/** The `/v1` calls the bench makes, over real HTTP like any client. */
export function createEngramHttpClient(baseUrl: string, apiKey: string) {
  const call = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${baseUrl}/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });

  /** Posts a send answered in one response, timed from the request to the whole answer, checked to be the scripted reply. */
  const syncSend = async (path: string, body: unknown, what: string): Promise<SyncSendResult> => {
    const sentAtMs = wallClockMs();
    const response = await call(path, { method: 'POST', body });
    if (!response.ok) throw await failure(response, what);
    const { messages } = (await response.json()) as { messages: Array<{ message_type: string; content?: unknown }> };
    const receivedAtMs = wallClockMs();
    const reply = messages.find((message) => message.message_type === 'assistant_message');
    if (reply?.content !== SCRIPTED_REPLY) throw new Error(`unexpected reply: ${JSON.stringify(messages)}`);
    return { runId: response.headers.get('x-run-id') ?? '', sentAtMs, receivedAtMs };
  };

  return {
    async createAgent(name: string): Promise<string> {
      const response = await call('/agents', {
        method: 'POST',
        body: {
          name,
          model: 'openai/gpt-4o-mini',
          memory_blocks: [
            { label: 'human', value: 'The human is benchmarking this agent.' },
            { label: 'persona', value: 'I answer briefly.' },
          ],
        },
      });
      if (!response.ok) throw await failure(response, 'POST /v1/agents');
      return ((await response.json()) as { id: string }).id;
    },

    /** `POST /v1/messages/batches`: the batch job's id, returned at once. */
    async createBatch(requests: Array<{ agent_id: string; messages: Array<{ role: string; content: string }> }>): Promise<string> {
      const response = await call('/messages/batches', { method: 'POST', body: { requests } });
      if (!response.ok) throw await failure(response, 'POST /v1/messages/batches');
      return ((await response.json()) as { id: string }).id;
    },

    async getBatch(batchId: string): Promise<{ status: string; metadata: Record<string, unknown> }> {
      const response = await call(`/messages/batches/${batchId}`);
      if (!response.ok) throw await failure(response, 'GET /v1/messages/batches/{id}');
      return (await response.json()) as { status: string; metadata: Record<string, unknown> };
    },

    /** The text of every assistant answer of the batch, read page by page. */
    async batchAnswers(batchId: string, expected: number): Promise<string[]> {
      const answers: string[] = [];
      let after: string | undefined;
      for (;;) {
        const response = await call(`/messages/batches/${batchId}/messages?limit=1000${after ? `&after=${after}` : ''}`);
        if (!response.ok) throw await failure(response, 'GET /v1/messages/batches/{id}/messages');
        const page = ((await response.json()) as { messages: Array<{ id: string; role: string; content: Array<{ text?: string }> }> }).messages;
        for (const message of page) if (message.role === 'assistant') answers.push(message.content.map((part) => part.text ?? '').join(''));
        if (page.length < 1000 || answers.length >= expected) return answers;
        after = page.at(-1)!.id;
      }
    },

    /** A sync send; resolves once the whole response is read and checked. */
    async sendMessage(agentId: string, text: string): Promise<SyncSendResult> {
      return syncSend(`/agents/${agentId}/messages`, { messages: [{ role: 'user', content: text }] }, 'POST /v1/agents/{id}/messages');
    },

    /** A streamed send with default options (pings on), timed at its first body byte, first message and end. */
    async streamMessage(agentId: string, text: string): Promise<StreamSendResult> {
      const sentAtMs = wallClockMs();
      const response = await call(`/agents/${agentId}/messages/stream`, { method: 'POST', body: { messages: [{ role: 'user', content: text }] } });
      if (!response.ok || !response.body) throw await failure(response, 'POST /v1/agents/{id}/messages/stream');
      const decoder = new TextDecoder();
      let received = '';
      let firstByteAtMs = Number.NaN;
      let firstAssistantFrameAtMs = Number.NaN;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (Number.isNaN(firstByteAtMs)) firstByteAtMs = wallClockMs();
        received += decoder.decode(chunk, { stream: true });
        if (Number.isNaN(firstAssistantFrameAtMs) && received.includes('"message_type":"assistant_message"')) {
          firstAssistantFrameAtMs = wallClockMs();
        }
      }
      const doneAtMs = wallClockMs();
      if (Number.isNaN(firstAssistantFrameAtMs) || !received.includes('data: [DONE]')) {
        throw new Error(`incomplete stream: ${received.slice(0, 300)}`);
      }
      return { sentAtMs, firstByteAtMs, firstAssistantFrameAtMs, doneAtMs };
    },

    /** `POST /v1/conversations/?agent_id=`: a new conversation of the agent. */
    async createConversation(agentId: string): Promise<string> {
      const response = await call(`/conversations/?agent_id=${agentId}`, { method: 'POST', body: {} });
      if (!response.ok) throw await failure(response, 'POST /v1/conversations/');
      return ((await response.json()) as { id: string }).id;
    },

    /** A sync send to a conversation (`streaming: false`); resolves once the whole response is read and checked. */
    async sendToConversation(conversationId: string, text: string): Promise<SyncSendResult> {
      const body = { messages: [{ role: 'user', content: text }], streaming: false };
      return syncSend(`/conversations/${conversationId}/messages`, body, 'POST /v1/conversations/{id}/messages');
    },

    async listMessages(agentId: string, limit: number): Promise<number> {
      const response = await call(`/agents/${agentId}/messages?limit=${limit}`);
      if (!response.ok) throw await failure(response, 'GET /v1/agents/{id}/messages');
      return ((await response.json()) as unknown[]).length;
    },
  };
}
