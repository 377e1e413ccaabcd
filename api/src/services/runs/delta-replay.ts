type DeltaFrame = Record<string, unknown> & { message_type: string };

type KeyState = {
  attempt: number;
  /** Characters of text (content, reasoning or tool arguments) the client has received. */
  delivered: number;
  /** Characters of the current attempt still to drop: what the client got from an earlier attempt. */
  skip: number;
  /** Tool calls the client has seen begin, and how many this attempt has begun again. */
  headersDelivered: number;
  headersThisAttempt: number;
  /** The tool call this attempt's latest tool-call frame belongs to (its id, or its name when it has none). */
  currentCall: string | undefined;
};

type ToolCallDelta = { tool_call_id?: string; name?: string; arguments?: string };

function textOf(frame: DeltaFrame): string {
  if (frame.message_type === 'assistant_message') return typeof frame.content === 'string' ? frame.content : '';
  if (frame.message_type === 'reasoning_message') return typeof frame.reasoning === 'string' ? frame.reasoning : '';
  return (frame.tool_call as ToolCallDelta | undefined)?.arguments ?? '';
}

/** The frame with only `text` left of its text; a tool call keeps its id and name, which every chunk carries. */
function withText(frame: DeltaFrame, text: string): DeltaFrame {
  if (frame.message_type === 'assistant_message') return { ...frame, content: text };
  if (frame.message_type === 'reasoning_message') return { ...frame, reasoning: text };
  const { arguments: _replayed, ...header } = (frame.tool_call as ToolCallDelta | undefined) ?? {};
  const toolCall: ToolCallDelta = { ...header };
  if (text !== '') toolCall.arguments = text;
  return { ...frame, tool_call: toolCall, tool_calls: [toolCall] };
}

/**
 * Token deltas of a model call that is retried (its worker died mid-stream) start the message over, under
 * the same message id. A client joins deltas by id, so forwarding the replay would repeat the text it
 * already has. This filter, one per stream, drops from a later attempt what the client received from an
 * earlier one and forwards only what is new. (A retried model call may word its answer differently; the
 * stored message is the retry's, and a resumed stream sends that one whole.)
 */
export function createDeltaReplayFilter() {
  const states = new Map<string, KeyState>();
  return function forward(key: string, attempt: number, frame: DeltaFrame): DeltaFrame | null {
    let state = states.get(key);
    if (!state) {
      state = { attempt, delivered: 0, skip: 0, headersDelivered: 0, headersThisAttempt: 0, currentCall: undefined };
      states.set(key, state);
    } else if (attempt > state.attempt) {
      state.attempt = attempt;
      state.skip = state.delivered;
      state.headersDelivered = Math.max(state.headersDelivered, state.headersThisAttempt);
      state.headersThisAttempt = 0;
      state.currentCall = undefined;
    } else if (attempt < state.attempt) {
      return null;
    }
    // A tool call begins where a chunk names another call than the one before; one the client saw begin in an
    // earlier attempt is not begun again (a chunk of it with no new arguments is dropped).
    const call = frame.message_type === 'tool_call_message' ? (frame.tool_call as ToolCallDelta | undefined) : undefined;
    const callKey = call?.tool_call_id ?? call?.name;
    const header = callKey !== undefined && callKey !== state.currentCall;
    let repeatedHeader = false;
    if (header) {
      state.currentCall = callKey;
      state.headersThisAttempt += 1;
      repeatedHeader = state.headersThisAttempt <= state.headersDelivered;
    }
    const original = textOf(frame);
    let text = original;
    if (state.skip > 0) {
      const dropped = Math.min(state.skip, text.length);
      text = text.slice(dropped);
      state.skip -= dropped;
    }
    state.delivered += text.length;
    if (text === original && !(repeatedHeader && text === '')) return frame;
    if (text === '' && (!header || repeatedHeader)) return null;
    return withText(frame, text);
  };
}
