import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Agent, Message } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const WINDOW = 2000;
const long = (word: string) => `${word} `.repeat(300).trim();

async function smallWindowAgent() {
  return client.agents.create({ model: 'openai/gpt-4o-mini', context_window_limit: WINDOW } as Parameters<typeof client.agents.create>[0]);
}

function isSummaryRequest(request: { messages: Array<{ role: string; content?: unknown }> }) {
  return JSON.stringify(request.messages[0]?.content ?? '').includes('Summarize the conversation');
}

describe('automatic compaction', () => {
  it('summarizes the oldest messages once a step passes 90% of the window, keeping history listed', async () => {
    const agent = await smallWindowAgent();
    model.onRequest((request) =>
      isSummaryRequest(request)
        ? { type: 'text', text: 'The user talked about apples and bananas.' }
        : { type: 'text', text: 'ok', usage: { prompt_tokens: request.messages.length > 6 ? 1900 : 400, completion_tokens: 10, total_tokens: 0 } },
    );
    for (const word of ['apple', 'banana', 'cherry', 'damson']) {
      await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: long(word) }] });
    }
    const summaryRequests = model.requests.filter(isSummaryRequest);
    expect(summaryRequests.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(summaryRequests[0]?.messages)).toContain('apple');

    const stored = await Agent.query(stack.db).findById(agent.id);
    const context = await Message.query(stack.db).whereIn('id', stored?.messageIds ?? []);
    const summary = context.find((message) => message.role === 'summary');
    expect(summary).toBeDefined();
    expect(stored?.messageIds[1]).toBe(summary?.id);
    expect(stored!.messageIds.length).toBeLessThan(9);

    const history = await client.agents.messages.list(agent.id, { limit: 100, order: 'asc' });
    expect(history.items.filter((message) => message.message_type === 'user_message').length).toBeGreaterThanOrEqual(4);

    model.reset();
    model.enqueue({ type: 'text', text: 'still here' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'what did we discuss?' }] });
    expect(JSON.stringify(model.requests[0]?.messages)).toContain('apples and bananas');
  });

  it('compacts and retries when the provider reports a context overflow', async () => {
    const agent = await smallWindowAgent();
    model.onRequest(() => ({ type: 'text', text: 'fine', usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } }));
    for (const word of ['one', 'two', 'three']) {
      await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: long(word) }] });
    }
    model.reset();
    model.enqueue(
      { type: 'error', status: 400, message: "This model's maximum context length is 2000 tokens. Please reduce the length of the messages.", code: 'context_length_exceeded' },
      { type: 'text', text: 'A summary of one, two and three.' },
      { type: 'text', text: 'Answered after compaction.' },
    );
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'and now?' }] });
    expect(response.messages).toEqual([expect.objectContaining({ message_type: 'assistant_message', content: 'Answered after compaction.' })]);
    expect(isSummaryRequest(model.requests[1] as never)).toBe(true);
  });
});

describe('POST /agents/{id}/summarize', () => {
  it('compacts on demand and reports message counts', async () => {
    const agent = await smallWindowAgent();
    model.onRequest((request) =>
      isSummaryRequest(request) ? { type: 'text', text: 'Summary on demand.' } : { type: 'text', text: 'ok' },
    );
    for (const word of ['red', 'green', 'blue', 'cyan']) {
      await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: long(word) }] });
    }
    const response = await fetch(`${stack.baseUrl}/v1/agents/${agent.id}/summarize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { summary: string; num_messages_before: number; num_messages_after: number };
    expect(body.summary).toBe('Summary on demand.');
    expect(body.num_messages_after).toBeLessThan(body.num_messages_before);
  });
});
