import OpenAI from 'openai';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Message } from '@engram/db';
import { createAgent } from '@engram/testing/factories/index';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: `${stack.baseUrl}/v1`, maxRetries: 0 });

describe('chat completions', () => {
  it('sends the last user message to the agent named by `model` and answers as a chat completion', async () => {
    const agent = await createAgent(stack);
    model.enqueue({ type: 'text', text: 'Paris, of course.', usage: { prompt_tokens: 50, completion_tokens: 4, total_tokens: 54 } });
    const completion = await openai.chat.completions.create({
      model: agent.id,
      messages: [
        { role: 'system', content: 'ignored: the agent has its own system prompt' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Paris, of course.' } });
    expect(completion.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 4, total_tokens: 54 });

    const stored = await Message.query(stack.db).where({ agentId: agent.id }).whereNot('role', 'system').orderBy('sequence');
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'What is the capital of France?' });
  }, 60_000);

  it('streams the answer as chat.completion.chunk events through the SDK', async () => {
    const agent = await createAgent(stack);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'weather' } }] },
      { type: 'text', text: 'It is sunny today.' },
    );
    const stream = await openai.chat.completions.create({ model: agent.id, stream: true, messages: [{ role: 'user', content: 'How is the weather?' }] });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('It is sunny today.');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  }, 60_000);

  it('answers 404 for an agent of another organization and 422 without a user message', async () => {
    const agent = await createAgent(stack);
    const other = await stack.createTenant();
    const outsider = new OpenAI({ apiKey: other.apiKey.key, baseURL: `${stack.baseUrl}/v1`, maxRetries: 0 });
    await expect(outsider.chat.completions.create({ model: agent.id, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 404 });
    await expect(openai.chat.completions.create({ model: agent.id, messages: [{ role: 'system', content: 'only a system message' }] })).rejects.toMatchObject({
      status: 422,
    });
  });
});
