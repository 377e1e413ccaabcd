import type { ToolCall, WireMessage } from '@engram/console-kit/wire-types';

/**
 * The chat as the user sees it: messages from history and from streams, merged by identity so a
 * message is shown once however it arrives (token deltas, a whole frame, a replay after a reload).
 *
 * Identity: a user message is its `otid` (the console sends one); a tool call (or the approval
 * request for it) is its `tool_call_id`; anything else is its message id plus `message_type`.
 */
export type Entry =
  | { kind: 'message'; key: string; message: WireMessage }
  | { kind: 'stop'; key: string; runId: string; stopReason: string; usage: UsageSummary | null }
  | { kind: 'error'; key: string; runId: string | null; message: string };

export type UsageSummary = { steps: number; totalTokens: number };

export type Transcript = { entries: Entry[] };

export const emptyTranscript: Transcript = { entries: [] };

const CALL_TYPES = new Set(['tool_call_message', 'approval_request_message']);
const IGNORED = new Set(['ping', 'usage_statistics']);

function toolCallOf(message: WireMessage): ToolCall | undefined {
  return message.tool_call ?? message.tool_calls?.[0];
}

export function messageKey(message: WireMessage): string {
  if (message.message_type === 'user_message' && message.otid) return `user:${message.otid}`;
  const callId = CALL_TYPES.has(message.message_type) ? toolCallOf(message)?.tool_call_id : undefined;
  if (callId) return `call:${callId}`;
  return `${message.id}:${message.message_type}`;
}

function textOf(content: WireMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => part.text ?? '').join('');
}

export function messageText(message: WireMessage): string {
  return textOf(message.content);
}

/** Adds a token delta to the message it previews. */
function appendDelta(existing: WireMessage, delta: WireMessage): WireMessage {
  switch (delta.message_type) {
    case 'assistant_message':
      return { ...existing, content: textOf(existing.content) + textOf(delta.content) };
    case 'reasoning_message':
      return { ...existing, reasoning: (existing.reasoning ?? '') + (delta.reasoning ?? '') };
    case 'tool_call_message': {
      const before = toolCallOf(existing) ?? {};
      const fragment = toolCallOf(delta) ?? {};
      const toolCall: ToolCall = {
        ...before,
        ...(fragment.name ? { name: fragment.name } : {}),
        ...(fragment.tool_call_id ? { tool_call_id: fragment.tool_call_id } : {}),
        arguments: (before.arguments ?? '') + (fragment.arguments ?? ''),
      };
      return { ...existing, tool_call: toolCall, tool_calls: [toolCall] };
    }
    default:
      return delta;
  }
}

function upsert(entries: Entry[], entry: Entry): Entry[] {
  const index = entries.findIndex((candidate) => candidate.key === entry.key);
  if (index < 0) return [...entries, entry];
  const next = entries.slice();
  next[index] = entry;
  return next;
}

/** Messages loaded from `GET /agents/{id}/messages` (oldest first), merged into what is shown. */
export function withHistory(transcript: Transcript, messages: WireMessage[]): Transcript {
  let entries = transcript.entries;
  for (const message of messages) {
    if (IGNORED.has(message.message_type)) continue;
    entries = upsert(entries, { kind: 'message', key: messageKey(message), message });
  }
  return { entries };
}

/**
 * Reads one stream connection. The server sends either a message whole or, for a message it
 * previews with token deltas, only the deltas (never both on one connection), so the second
 * frame of the same message on a connection is always a delta.
 */
export class StreamReader {
  private readonly seen = new Set<string>();
  /** The tool call that fragments without a `tool_call_id` continue, by message id. */
  private readonly openCall = new Map<string, string>();
  lastSeq: number;
  runId: string | null = null;

  constructor(startingAfter = 0) {
    this.lastSeq = startingAfter;
  }

  apply(transcript: Transcript, frame: WireMessage): Transcript {
    if (typeof frame.run_id === 'string') this.runId = frame.run_id;
    if (typeof frame.seq_id === 'number' && frame.seq_id > this.lastSeq) this.lastSeq = frame.seq_id;
    const type = frame.message_type;
    if (type === 'ping') return transcript;
    if (type === 'usage_statistics') return this.withUsage(transcript, frame);
    if (type === 'stop_reason') {
      const runId = this.runId ?? 'run';
      return { entries: upsert(transcript.entries, { kind: 'stop', key: `stop:${runId}`, runId, stopReason: String(frame.stop_reason), usage: null }) };
    }
    if (type === 'error_message') {
      const message = String(frame.message ?? 'The run failed');
      return { entries: upsert(transcript.entries, { kind: 'error', key: `error:${this.runId ?? ''}:${message}`, runId: this.runId, message }) };
    }

    let key = messageKey(frame);
    if (type === 'tool_call_message') {
      const callId = toolCallOf(frame)?.tool_call_id;
      if (callId) this.openCall.set(frame.id, key);
      else key = this.openCall.get(frame.id) ?? key;
    }
    const existingIndex = transcript.entries.findIndex((entry) => entry.key === key);
    const existing = existingIndex >= 0 ? transcript.entries[existingIndex] : undefined;
    let message = frame;
    if (this.seen.has(key) && existing?.kind === 'message') message = appendDelta(existing.message, frame);
    this.seen.add(key);

    // An approval request has its tool call's identity, so it takes the place of the call's token preview.
    return { entries: upsert(transcript.entries, { kind: 'message', key, message }) };
  }

  private withUsage(transcript: Transcript, frame: WireMessage): Transcript {
    const key = `stop:${this.runId ?? 'run'}`;
    const usage: UsageSummary = { steps: Number(frame.step_count ?? 0), totalTokens: Number(frame.total_tokens ?? 0) };
    return {
      entries: transcript.entries.map((entry) => (entry.key === key && entry.kind === 'stop' ? { ...entry, usage } : entry)),
    };
  }
}

/** The approval requests nobody has answered yet (no response or tool return follows them). */
export function pendingApprovals(transcript: Transcript): WireMessage[] {
  const answered = new Set<string>();
  for (const entry of transcript.entries) {
    if (entry.kind !== 'message') continue;
    const { message } = entry;
    if (message.message_type === 'tool_return_message' && message.tool_call_id) answered.add(message.tool_call_id);
    if (message.message_type === 'approval_response_message') {
      const approvals = (message.approvals as Array<{ tool_call_id?: string }> | undefined) ?? [];
      for (const approval of approvals) if (approval.tool_call_id) answered.add(approval.tool_call_id);
      if (message.approval_request_id) answered.add(`request:${message.approval_request_id}`);
    }
  }
  return transcript.entries.flatMap((entry) => {
    if (entry.kind !== 'message' || entry.message.message_type !== 'approval_request_message') return [];
    const callId = toolCallOf(entry.message)?.tool_call_id;
    if ((callId && answered.has(callId)) || answered.has(`request:${entry.message.id}`)) return [];
    return [entry.message];
  });
}

/** The name of the tool a tool return answers, from the calls in the transcript. */
export function toolNameFor(transcript: Transcript, toolCallId: string | undefined): string | undefined {
  if (!toolCallId) return undefined;
  for (const entry of transcript.entries) {
    if (entry.kind !== 'message' || !CALL_TYPES.has(entry.message.message_type)) continue;
    const call = toolCallOf(entry.message);
    if (call?.tool_call_id === toolCallId) return call.name;
  }
  return undefined;
}

/** A run as listed by `GET /runs/`; a failed run's record says why in `metadata.error`. */
type RunSummary = { id: string; status?: string; stop_reason: string | null; metadata?: { error?: { message?: unknown } | null } | null };

/** Stop reasons of a run that completed; any other ends a turn that failed or was cancelled. */
const COMPLETED_STOP_REASONS = new Set(['end_turn', 'max_steps', 'tool_rule', 'requires_approval']);

/**
 * What the user typed for a turn that failed or was cancelled, to send again (Retry, Edit and resend); null for a
 * turn that completed, or one that answered an approval rather than carried text.
 */
export function unansweredText(transcript: Transcript, stop: Extract<Entry, { kind: 'stop' }>): string | null {
  if (COMPLETED_STOP_REASONS.has(stop.stopReason)) return null;
  const typed = transcript.entries.flatMap((entry) =>
    entry.kind === 'message' && entry.message.message_type === 'user_message' && entry.message.run_id === stop.runId ? [messageText(entry.message)] : [],
  );
  const text = typed.join('\n\n').trim();
  return text === '' ? null : text;
}

const runOf = (entry: Entry): string | null | undefined => (entry.kind === 'message' ? entry.message.run_id : entry.runId);

/**
 * The transcript from the server's record: history (oldest first) with each run's stop reason after
 * its last message (history has no stop frames), and a failed run's error before it, from the run's
 * record (the server stores a run's input when it accepts it, so a turn that failed or was cancelled
 * before any answer still shows what the user typed, and why nothing came back). Usage and errors
 * seen on streams are kept, and so is what a stream showed of a run the record has no message of.
 */
export function fromHistory(previous: Transcript, history: WireMessage[], runs: RunSummary[]): Transcript {
  let entries = withHistory(emptyTranscript, history).entries;
  const earlier = new Map(previous.entries.map((entry) => [entry.key, entry]));
  const place = (entry: Entry, runId: string | null) => {
    const last = entries.findLastIndex((candidate) => candidate.kind === 'message' && candidate.message.run_id === runId);
    if (last < 0) return;
    entries = [...entries.slice(0, last + 1), entry, ...entries.slice(last + 1)];
  };
  for (const run of runs) {
    if (!run.stop_reason) continue;
    const key = `stop:${run.id}`;
    const seen = earlier.get(key);
    place({ kind: 'stop', key, runId: run.id, stopReason: run.stop_reason, usage: seen?.kind === 'stop' ? seen.usage : null }, run.id);
    const failure = run.status === 'failed' ? run.metadata?.error?.message : undefined;
    // Keyed like the stream's error frame for the same run, so a turn seen live shows its error once.
    if (typeof failure === 'string') place({ kind: 'error', key: `error:${run.id}:${failure}`, runId: run.id, message: failure }, run.id);
  }
  const storedRuns = new Set(history.map((message) => message.run_id).filter(Boolean));
  const ended = new Set(runs.filter((run) => run.status !== 'created' && run.status !== 'running').map((run) => run.id));
  let anchor: string | null = null;
  for (const entry of previous.entries) {
    const runId = runOf(entry);
    const unstored = runId && ended.has(runId) && !storedRuns.has(runId) && !entries.some((candidate) => candidate.key === entry.key);
    if (!unstored) {
      if (entries.some((candidate) => candidate.key === entry.key)) anchor = entry.key;
      continue;
    }
    let at: number = anchor === null ? -1 : entries.findIndex((candidate) => candidate.key === anchor);
    // After the anchor's turn, stop reason included.
    while (at >= 0 && entries[at + 1]?.kind === 'stop' && runOf(entries[at + 1]!) === runOf(entries[at]!)) at += 1;
    entries = at < 0 ? [...entries, entry] : [...entries.slice(0, at + 1), entry, ...entries.slice(at + 1)];
    anchor = entry.key;
  }
  for (const entry of previous.entries) {
    if (entry.kind === 'error' && !entries.some((candidate) => candidate.key === entry.key)) {
      if (entry.runId && entries.some((candidate) => candidate.kind === 'message' && candidate.message.run_id === entry.runId)) place(entry, entry.runId);
      else entries = [...entries, entry];
    }
  }
  return { entries };
}
