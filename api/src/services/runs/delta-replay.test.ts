import { describe, expect, it } from 'vitest';
import { createDeltaReplayFilter } from './delta-replay.js';

const text = (content: string) => ({ message_type: 'assistant_message', id: 'message-1', content });
const toolCall = (call: { tool_call_id?: string; name?: string; arguments?: string }) => ({
  message_type: 'tool_call_message',
  id: 'message-1',
  tool_call: call,
  tool_calls: [call],
});

function joined(frames: Array<Record<string, unknown> | null>): string {
  return frames
    .filter((frame): frame is Record<string, unknown> => frame !== null)
    .map((frame) => String(frame.content ?? frame.reasoning ?? (frame.tool_call as { arguments?: string }).arguments ?? ''))
    .join('');
}

describe('the delta replay filter', () => {
  it('forwards a first attempt untouched', () => {
    const forward = createDeltaReplayFilter();
    const frame = text('Hello');
    expect(forward('message-1:assistant_message', 1, frame)).toBe(frame);
  });

  it('drops what a retried model call streams again, and forwards only what is new', () => {
    const forward = createDeltaReplayFilter();
    const key = 'message-1:assistant_message';
    const first = ['The ', 'answ'].map((piece) => forward(key, 1, text(piece)));
    const retried = ['The ', 'answer ', 'is 42.'].map((piece) => forward(key, 2, text(piece)));
    expect(joined(first) + joined(retried)).toBe('The answer is 42.');
    expect(retried[0]).toBeNull();
    expect(retried[1]).toMatchObject({ content: 'er ' });
  });

  it('handles a third attempt and ignores a late frame of an older one', () => {
    const forward = createDeltaReplayFilter();
    const key = 'message-1:reasoning_message';
    const reasoning = (piece: string) => ({ message_type: 'reasoning_message', id: 'message-1', reasoning: piece });
    const frames = [
      forward(key, 1, reasoning('Let me ')),
      forward(key, 2, reasoning('Let me th')),
      forward(key, 1, reasoning('stale')),
      forward(key, 3, reasoning('Let me think.')),
    ];
    expect(joined(frames)).toBe('Let me think.');
  });

  it('begins a tool call once and sends its arguments without repeats, every chunk naming its call', () => {
    const forward = createDeltaReplayFilter();
    const key = 'message-1:tool_call_message';
    const header = { tool_call_id: 'call-a', name: 'search' };
    const first = [forward(key, 1, toolCall(header)), forward(key, 1, toolCall({ ...header, arguments: '{"q":' }))];
    const retried = [
      forward(key, 2, toolCall(header)),
      forward(key, 2, toolCall({ ...header, arguments: '{"q":"ca' })),
      forward(key, 2, toolCall({ ...header, arguments: 'ts"}' })),
    ];
    expect(retried[0]).toBeNull();
    expect(joined(first) + joined(retried)).toBe('{"q":"cats"}');
    expect(retried[1]).toMatchObject({ tool_call: { ...header, arguments: '"ca' } });
    expect(retried[2]).toMatchObject({ tool_call: { ...header, arguments: 'ts"}' } });
  });

  it('begins a call the earlier attempt never reached, though its arguments were all replayed', () => {
    const forward = createDeltaReplayFilter();
    const key = 'message-1:tool_call_message';
    const a = { tool_call_id: 'call-a', name: 'search' };
    const b = { tool_call_id: 'call-b', name: 'fetch' };
    forward(key, 1, toolCall({ ...a, arguments: '{}' }));
    const retried = [forward(key, 2, toolCall({ ...a, arguments: '{}' })), forward(key, 2, toolCall(b)), forward(key, 2, toolCall({ ...b, arguments: '{"u":1}' }))];
    expect(retried[0]).toBeNull();
    expect(retried[1]).toMatchObject({ tool_call: b });
    expect(retried[2]).toMatchObject({ tool_call: { ...b, arguments: '{"u":1}' } });
  });
});
