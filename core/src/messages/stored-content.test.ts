import { describe, expect, it } from 'vitest';
import { spokenText } from './stored-content.js';

const call = (name: string, args: string) => ({ id: `call_${name}`, type: 'function' as const, function: { name, arguments: args } });

describe('spokenText', () => {
  it('is the text of an assistant message, and the message of its send_message calls', () => {
    expect(spokenText({ role: 'assistant', content: [{ type: 'text', text: 'Hello.' }], toolCalls: null })).toBe('Hello.');
    expect(
      spokenText({
        role: 'assistant',
        content: [{ type: 'reasoning', reasoning: 'thinking' }],
        toolCalls: [call('send_message', JSON.stringify({ message: 'Sent words.' })), call('memory_insert', '{"label":"human"}')],
      }),
    ).toBe('Sent words.');
  });

  it('says nothing for other roles, tool-only answers and unreadable arguments', () => {
    expect(spokenText({ role: 'user', content: [{ type: 'text', text: 'question' }], toolCalls: null })).toBe('');
    expect(spokenText({ role: 'assistant', content: [], toolCalls: [call('conversation_search', '{}')] })).toBe('');
    expect(spokenText({ role: 'assistant', content: [], toolCalls: [call('send_message', '{not json')] })).toBe('');
  });

  it('reads the assistant tool and argument it is told to', () => {
    expect(spokenText({ role: 'assistant', content: [], toolCalls: [call('reply', '{"text":"Hi"}')] }, { name: 'reply', kwarg: 'text' })).toBe('Hi');
  });
});
