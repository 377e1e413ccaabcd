import { describe, expect, it } from 'vitest';
import type { ModelRequest, PromptMessage } from '../model.js';
import { buildAnthropicMessagesPayload } from './anthropic-payload.js';
import { buildBedrockConversePayload } from './bedrock-payload.js';
import { buildGeminiPayload } from './gemini-payload.js';
import { buildProviderPayload } from './provider-payload.js';
import { wireProtocolFor } from './wire-protocol.js';

const settings = (model_endpoint_type: string, model: string, enable_reasoner = false) => ({ model, model_endpoint_type, context_window: 1000, enable_reasoner });

function request(type: string, model: string, messages: PromptMessage[], enableReasoner = true): ModelRequest {
  return {
    settings: settings(type, model, enableReasoner),
    messages,
    tools: [{ name: 'lookup', description: 'Looks up.', parameters: { type: 'object', properties: {} } }],
    toolChoice: 'required',
    parallelToolCalls: false,
    stream: false,
  };
}

const toolLoop = (reasoningParts: Extract<PromptMessage, { role: 'assistant' }>['reasoningParts']): PromptMessage[] => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Look it up.' },
  { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{}' }], ...(reasoningParts ? { reasoningParts } : {}) },
  { role: 'tool', toolCallId: 'call_1', content: 'found' },
];

describe('wire protocols', () => {
  it('maps each provider type to the protocol it speaks, OpenAI and Azure by model and reasoning', () => {
    expect(wireProtocolFor(settings('anthropic', 'claude-sonnet-4-5'))).toBe('anthropic');
    expect(wireProtocolFor(settings('google_vertex', 'gemini-2.5-pro'))).toBe('gemini');
    expect(wireProtocolFor(settings('bedrock', 'amazon.nova-pro-v1:0'))).toBe('bedrock');
    expect(wireProtocolFor(settings('openai', 'gpt-4o-mini'))).toBe('openai_chat');
    expect(wireProtocolFor(settings('openai', 'o4-mini'))).toBe('openai_responses');
    expect(wireProtocolFor(settings('azure', 'my-deployment', true))).toBe('openai_responses');
    expect(wireProtocolFor(settings('mistral', 'mistral-large-latest', true))).toBe('openai_chat');
  });

  it('builds the payload of the protocol the provider speaks', () => {
    const messages: PromptMessage[] = [{ role: 'user', content: 'hi' }];
    expect(buildProviderPayload(request('google_ai', 'gemini-2.5-flash', messages))).toHaveProperty('contents');
    expect(buildProviderPayload(request('bedrock', 'anthropic.claude-sonnet-4-20250514-v1:0', messages))).toHaveProperty('modelId');
    expect(buildProviderPayload(request('openai', 'gpt-5-mini', messages))).toHaveProperty('input');
  });

  it("thinks while a tool loop continues only when the turn it continues began with the protocol's own thinking", () => {
    const own = buildAnthropicMessagesPayload(request('anthropic', 'claude-sonnet-4-5', toolLoop([{ type: 'reasoning', text: 'Hmm.', signature: 'sig', protocol: 'anthropic' }])));
    expect(own).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, tool_choice: { type: 'auto' } });
    expect((own.messages as Array<{ content: Array<{ type: string }> }>)[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'Hmm.', signature: 'sig' });

    // The turn came from Gemini: its signature means nothing to Anthropic, so this request does not think.
    const foreign = buildAnthropicMessagesPayload(request('anthropic', 'claude-sonnet-4-5', toolLoop([{ type: 'reasoning', text: 'Hmm.', signature: 'g', protocol: 'gemini' }])));
    expect(foreign).not.toHaveProperty('thinking');
    expect(JSON.stringify(foreign)).not.toContain('"g"');
    expect(buildBedrockConversePayload(request('bedrock', 'anthropic.claude-sonnet-4-20250514-v1:0', toolLoop(undefined)))).not.toHaveProperty('additionalModelRequestFields');
  });

  it('sends a Gemini thought signature back on the first function call of its turn, and results under the function name', () => {
    const payload = buildGeminiPayload(request('google_ai', 'gemini-2.5-flash', toolLoop([{ type: 'reasoning', text: 'Hmm.', signature: 'g-sig', protocol: 'gemini' }])));
    expect(payload.contents).toEqual([
      { role: 'user', parts: [{ text: 'Look it up.' }] },
      { role: 'model', parts: [{ functionCall: { name: 'lookup', args: {} }, thoughtSignature: 'g-sig' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { result: 'found' } } }] },
    ]);
    expect(payload).toMatchObject({ systemInstruction: { parts: [{ text: 'Be brief.' }] }, toolConfig: { functionCallingConfig: { mode: 'ANY' } } });
  });
});
