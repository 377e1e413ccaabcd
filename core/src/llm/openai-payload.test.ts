import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelSettings } from '../model.js';
import { buildOpenAiChatPayload } from './openai-payload.js';

const settings: ModelSettings = {
  model: 'gpt-4o-mini',
  model_endpoint_type: 'openai',
  context_window: 128_000,
  temperature: 0.7,
  max_tokens: 1024,
};

const searchTool = {
  name: 'search',
  description: 'Searches the archive.',
  parameters: { type: 'object' as const, properties: { query: { type: 'string' } }, required: ['query'] },
};

function request(overrides: Partial<ModelRequest>): ModelRequest {
  return { settings, messages: [], tools: [], toolChoice: 'auto', parallelToolCalls: false, stream: false, ...overrides };
}

describe('buildOpenAiChatPayload', () => {
  it('renders a conversation with tool calls and results in Chat Completions form', () => {
    const payload = buildOpenAiChatPayload(
      request({
        messages: [
          { role: 'system', content: 'You are Engram.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look:' },
              { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            ],
          },
          { role: 'assistant', content: null, reasoning: 'I should search.', toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"query":"cats"}' }] },
          { role: 'tool', toolCallId: 'call_1', content: '3 cats' },
          { role: 'assistant', content: 'Found 3 cats.' },
        ],
        tools: [searchTool],
        toolChoice: 'required',
        parallelToolCalls: true,
      }),
    );
    expect(payload).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are Engram.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query":"cats"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '3 cats' },
        { role: 'assistant', content: 'Found 3 cats.' },
      ],
      tools: [{ type: 'function', function: searchTool }],
      tool_choice: 'required',
      parallel_tool_calls: true,
      temperature: 0.7,
      max_tokens: 1024,
    });
  });

  it('names a forced tool in OpenAI form', () => {
    const payload = buildOpenAiChatPayload(request({ tools: [searchTool], toolChoice: { name: 'search' } }));
    expect(payload.tool_choice).toEqual({ type: 'function', function: { name: 'search' } });
    expect(payload.parallel_tool_calls).toBe(false);
  });

  it('leaves out tool fields without tools and unset sampling fields', () => {
    const payload = buildOpenAiChatPayload(
      request({ settings: { ...settings, temperature: null, max_tokens: null }, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(payload).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('asks for usage in the stream when streaming', () => {
    const payload = buildOpenAiChatPayload(request({ stream: true }));
    expect(payload).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('gives a bare assistant message empty content rather than null', () => {
    const payload = buildOpenAiChatPayload(request({ messages: [{ role: 'assistant', content: null }] }));
    expect(payload.messages).toEqual([{ role: 'assistant', content: '' }]);
  });
});
