import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelSettings } from '../model.js';
import { buildAnthropicMessagesPayload, DEFAULT_ANTHROPIC_MAX_TOKENS } from './anthropic-payload.js';

const settings: ModelSettings = {
  model: 'claude-sonnet-4-5',
  model_endpoint_type: 'anthropic',
  context_window: 200_000,
  temperature: 1,
  max_tokens: null,
};

const searchTool = {
  name: 'search',
  description: 'Searches the archive.',
  parameters: { type: 'object' as const, properties: { query: { type: 'string' } }, required: ['query'] },
};

function request(overrides: Partial<ModelRequest>): ModelRequest {
  return { settings, messages: [], tools: [], toolChoice: 'auto', parallelToolCalls: true, stream: false, ...overrides };
}

describe('buildAnthropicMessagesPayload', () => {
  it('separates the system prompt and pairs tool_use with tool_result blocks', () => {
    const payload = buildAnthropicMessagesPayload(
      request({
        messages: [
          { role: 'system', content: 'You are Engram.' },
          { role: 'user', content: 'Find cats and dogs.' },
          {
            role: 'assistant',
            content: 'Searching.',
            reasoning: 'Two searches.',
            toolCalls: [
              { id: 'toolu_1', name: 'search', arguments: '{"query":"cats"}' },
              { id: 'toolu_2', name: 'search', arguments: '{"query":' },
            ],
          },
          { role: 'tool', toolCallId: 'toolu_1', content: '3 cats' },
          { role: 'tool', toolCallId: 'toolu_2', content: 'Error: invalid JSON arguments' },
          { role: 'system', content: 'Memory updated.' },
        ],
        tools: [searchTool],
      }),
    );
    expect(payload).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
      system: 'You are Engram.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Find cats and dogs.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Searching.' },
            { type: 'tool_use', id: 'toolu_1', name: 'search', input: { query: 'cats' } },
            { type: 'tool_use', id: 'toolu_2', name: 'search', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '3 cats' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Error: invalid JSON arguments' },
            { type: 'text', text: 'Memory updated.' },
          ],
        },
      ],
      tools: [{ name: 'search', description: 'Searches the archive.', input_schema: searchTool.parameters }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: false },
      temperature: 1,
      stream: false,
    });
  });

  it.each([
    ['required' as const, { type: 'any', disable_parallel_tool_use: true }],
    [{ name: 'search' }, { type: 'tool', name: 'search', disable_parallel_tool_use: true }],
    ['none' as const, { type: 'none' }],
  ])('maps tool choice %j', (toolChoice, expected) => {
    const payload = buildAnthropicMessagesPayload(request({ tools: [searchTool], toolChoice, parallelToolCalls: false }));
    expect(payload.tool_choice).toEqual(expected);
  });

  it('sends images as base64 blocks, honours max_tokens and streams on request', () => {
    const payload = buildAnthropicMessagesPayload(
      request({
        settings: { ...settings, max_tokens: 2048 },
        messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQ' }] }],
        stream: true,
      }),
    );
    expect(payload).toMatchObject({
      max_tokens: 2048,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } }] }],
    });
    expect(payload).not.toHaveProperty('system');
    expect(payload).not.toHaveProperty('tools');
    expect(payload).not.toHaveProperty('tool_choice');
  });
});
