import { describe, expect, it } from 'vitest';
import type { WireMessage } from '@engram/console-kit/wire-types';
import { emptyTranscript, fromHistory, messageText, pendingApprovals, StreamReader, unansweredText, withHistory, type Transcript } from './transcript.js';

const frame = (fields: Partial<WireMessage> & Pick<WireMessage, 'message_type'>): WireMessage => ({ id: 'message-1', ...fields }) as WireMessage;

function read(frames: WireMessage[], start: Transcript = emptyTranscript, reader = new StreamReader()) {
  return frames.reduce((transcript, next) => reader.apply(transcript, next), start);
}

const texts = (transcript: Transcript) =>
  transcript.entries.map((entry) => (entry.kind === 'message' ? `${entry.message.message_type}:${messageText(entry.message) || entry.message.reasoning || entry.message.tool_call?.arguments || ''}` : entry.kind));

describe('the chat transcript', () => {
  it('joins token deltas of one message, and of its reasoning, by message id', () => {
    const transcript = read([
      frame({ message_type: 'ping', run_id: 'run-1', seq_id: 0 }),
      frame({ message_type: 'reasoning_message', reasoning: 'The user ', seq_id: 1 }),
      frame({ message_type: 'reasoning_message', reasoning: 'greets me.', seq_id: 1 }),
      frame({ message_type: 'assistant_message', content: 'Hello ', seq_id: 1 }),
      frame({ message_type: 'assistant_message', content: 'Ada!', seq_id: 1 }),
      frame({ message_type: 'stop_reason', stop_reason: 'end_turn', seq_id: 4 }),
      frame({ message_type: 'usage_statistics', step_count: 1, total_tokens: 42 }),
    ]);
    expect(texts(transcript)).toEqual(['reasoning_message:The user greets me.', 'assistant_message:Hello Ada!', 'stop']);
    expect(transcript.entries[2]).toMatchObject({ kind: 'stop', runId: 'run-1', stopReason: 'end_turn', usage: { steps: 1, totalTokens: 42 } });
  });

  it('shows a message once when a resumed stream replays what history already has', () => {
    const history = withHistory(emptyTranscript, [
      frame({ id: 'message-u', message_type: 'user_message', otid: 'otid-1', content: 'hi' }),
      frame({ id: 'message-a', message_type: 'assistant_message', content: 'Hel' }),
    ]);
    const reader = new StreamReader(3);
    const resumed = read(
      [
        frame({ id: 'message-u', message_type: 'user_message', otid: 'otid-1', content: 'hi', seq_id: 1 }),
        frame({ id: 'message-a', message_type: 'assistant_message', content: 'Hello there', seq_id: 5 }),
        frame({ message_type: 'stop_reason', stop_reason: 'end_turn', run_id: 'run-2', seq_id: 6 }),
      ],
      history,
      reader,
    );
    expect(texts(resumed)).toEqual(['user_message:hi', 'assistant_message:Hello there', 'stop']);
    expect(reader.lastSeq).toBe(6);
  });

  it('assembles streamed tool call arguments, and lets the approval request take the preview’s place', () => {
    const transcript = read([
      frame({ message_type: 'tool_call_message', tool_call: { tool_call_id: 'call-1', name: 'memory_insert' } }),
      frame({ message_type: 'tool_call_message', tool_call: { arguments: '{"label":' } }),
      frame({ message_type: 'tool_call_message', tool_call: { arguments: '"human"}' } }),
      frame({ message_type: 'approval_request_message', tool_call: { tool_call_id: 'call-1', name: 'memory_insert', arguments: '{"label":"human"}' }, seq_id: 2 }),
    ]);
    expect(texts(transcript)).toEqual(['approval_request_message:{"label":"human"}']);
    expect(pendingApprovals(transcript)).toHaveLength(1);

    const answered = read([frame({ id: 'message-r', message_type: 'tool_return_message', tool_call_id: 'call-1', status: 'success', seq_id: 3 })], transcript);
    expect(pendingApprovals(answered)).toEqual([]);
  });

  it('keeps an optimistic user message and the stream’s copy of it as one entry (same otid)', () => {
    const mine = withHistory(emptyTranscript, [frame({ id: 'local', message_type: 'user_message', otid: 'otid-9', content: 'hello' })]);
    const merged = read([frame({ id: 'message-9', message_type: 'user_message', otid: 'otid-9', content: 'hello', seq_id: 1 })], mine);
    expect(merged.entries).toHaveLength(1);
  });
});

describe('rebuilding from history', () => {
  it('puts each run’s stop reason after its last message and keeps usage seen on the stream', () => {
    const reader = new StreamReader();
    const live = read(
      [
        frame({ message_type: 'ping', run_id: 'run-1', seq_id: 0 }),
        frame({ id: 'message-a', message_type: 'assistant_message', content: 'Hi', seq_id: 0 }),
        frame({ message_type: 'stop_reason', stop_reason: 'end_turn', seq_id: 2 }),
        frame({ message_type: 'usage_statistics', step_count: 2, total_tokens: 10, seq_id: 3 }),
      ],
      emptyTranscript,
      reader,
    );
    const rebuilt = fromHistory(
      live,
      [
        frame({ id: 'message-u', message_type: 'user_message', otid: 'o1', content: 'hello', run_id: 'run-1' }),
        frame({ id: 'message-a', message_type: 'assistant_message', content: 'Hi there', run_id: 'run-1' }),
        frame({ id: 'message-u2', message_type: 'user_message', otid: 'o2', content: 'next', run_id: 'run-2' }),
      ],
      [
        { id: 'run-2', stop_reason: null },
        { id: 'run-1', stop_reason: 'end_turn' },
      ],
    );
    expect(rebuilt.entries.map((entry) => entry.key)).toEqual(['user:o1', 'message-a:assistant_message', 'stop:run-1', 'user:o2']);
    expect(rebuilt.entries[2]).toMatchObject({ usage: { steps: 2, totalTokens: 10 } });
  });

  it('keeps a cancelled turn the server stored nothing of, where it happened', () => {
    const before = withHistory(emptyTranscript, [
      frame({ id: 'message-u1', message_type: 'user_message', otid: 'o1', content: 'first', run_id: 'run-1' }),
      frame({ id: 'message-a1', message_type: 'assistant_message', content: 'one', run_id: 'run-1' }),
      frame({ id: 'local', message_type: 'user_message', otid: 'o2', content: 'long please', run_id: 'run-2' }),
      frame({ id: 'message-a2', message_type: 'assistant_message', content: 'slow1 slow2', run_id: 'run-2' }),
      frame({ id: 'message-u3', message_type: 'user_message', otid: 'o3', content: 'third', run_id: 'run-3' }),
    ]);
    const rebuilt = fromHistory(
      before,
      [
        frame({ id: 'message-u1', message_type: 'user_message', otid: 'o1', content: 'first', run_id: 'run-1' }),
        frame({ id: 'message-a1', message_type: 'assistant_message', content: 'one', run_id: 'run-1' }),
        frame({ id: 'message-u3', message_type: 'user_message', otid: 'o3', content: 'third', run_id: 'run-3' }),
      ],
      [
        { id: 'run-3', status: 'running', stop_reason: null },
        { id: 'run-2', status: 'cancelled', stop_reason: 'cancelled' },
        { id: 'run-1', status: 'completed', stop_reason: 'end_turn' },
      ],
    );
    expect(rebuilt.entries.map((entry) => entry.key)).toEqual([
      'user:o1',
      'message-a1:assistant_message',
      'stop:run-1',
      'user:o2',
      'message-a2:assistant_message',
      'user:o3',
    ]);
  });

  it('shows a failed turn after a reload as the user’s message, the run’s error, then its stop reason, once', () => {
    const reader = new StreamReader();
    const live = read(
      [
        frame({ message_type: 'ping', run_id: 'run-2', seq_id: 0 }),
        frame({ message_type: 'error_message', message: 'The provider is down.', seq_id: 1 }),
        frame({ message_type: 'stop_reason', stop_reason: 'llm_api_error', seq_id: 2 }),
      ],
      emptyTranscript,
      reader,
    );
    const history = [
      frame({ id: 'message-u1', message_type: 'user_message', otid: 'o1', content: 'first', run_id: 'run-1' }),
      frame({ id: 'message-a1', message_type: 'assistant_message', content: 'one', run_id: 'run-1' }),
      frame({ id: 'message-u2', message_type: 'user_message', otid: 'o2', content: 'are you there?', run_id: 'run-2' }),
    ];
    const runs = [
      { id: 'run-2', status: 'failed', stop_reason: 'llm_api_error', metadata: { error: { message: 'The provider is down.' } } },
      { id: 'run-1', status: 'completed', stop_reason: 'end_turn', metadata: {} },
    ];
    for (const previous of [live, emptyTranscript]) {
      const rebuilt = fromHistory(previous, history, runs);
      expect(rebuilt.entries.map((entry) => entry.key)).toEqual([
        'user:o1',
        'message-a1:assistant_message',
        'stop:run-1',
        'user:o2',
        'error:run-2:The provider is down.',
        'stop:run-2',
      ]);
    }
  });

  it('offers what the user typed for a failed or cancelled turn, and nothing for one that completed', () => {
    const transcript = fromHistory(
      emptyTranscript,
      [
        frame({ id: 'message-u1', message_type: 'user_message', otid: 'o1', content: 'fine', run_id: 'run-1' }),
        frame({ id: 'message-a1', message_type: 'assistant_message', content: 'ok', run_id: 'run-1' }),
        frame({ id: 'message-u2', message_type: 'user_message', otid: 'o2', content: [{ type: 'text', text: 'think long' }], run_id: 'run-2' }),
        frame({ id: 'message-r3', message_type: 'approval_response_message', run_id: 'run-3' }),
      ],
      [
        { id: 'run-3', status: 'failed', stop_reason: 'error' },
        { id: 'run-2', status: 'cancelled', stop_reason: 'cancelled' },
        { id: 'run-1', status: 'completed', stop_reason: 'end_turn' },
      ],
    );
    const stops = transcript.entries.filter((entry) => entry.kind === 'stop');
    expect(stops.map((stop) => [stop.runId, unansweredText(transcript, stop)])).toEqual([
      ['run-1', null],
      ['run-2', 'think long'],
      ['run-3', null],
    ]);
  });
});
