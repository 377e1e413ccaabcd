import { callIds, retryHeaders, sendJson, startProtocolServer, usageOf, writeSse, type ProtocolServer, type ProviderReply } from './script.js';

type Answer = Extract<ProviderReply, { type: 'answer' }>;

function contentBlocks(reply: Answer, nextCallId: ReturnType<typeof callIds>): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  if (reply.reasoning) blocks.push({ type: 'thinking', thinking: reply.reasoning, signature: reply.signature ?? '' });
  if (reply.hiddenReasoning) blocks.push({ type: 'redacted_thinking', data: reply.hiddenReasoning });
  if (reply.text) blocks.push({ type: 'text', text: reply.text });
  for (const call of reply.calls ?? []) blocks.push({ type: 'tool_use', id: `toolu_${nextCallId(call)}`, name: call.name, input: call.arguments });
  return blocks;
}

function usageBlock(reply: Answer) {
  const usage = usageOf(reply);
  // Anthropic counts cache reads apart from `input_tokens`.
  return { input_tokens: usage.input - (usage.cached ?? 0), output_tokens: usage.output, cache_read_input_tokens: usage.cached ?? 0, cache_creation_input_tokens: 0 };
}

/** The Messages API's stream: the message, every block started, its deltas, stopped; then the stop reason. */
function messageEvents(message: Record<string, unknown> & { content: Array<Record<string, unknown>>; usage: ReturnType<typeof usageBlock> }) {
  const events: Array<{ event: string; data: unknown }> = [];
  const push = (type: string, data: Record<string, unknown>) => events.push({ event: type, data: { type, ...data } });
  push('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } });
  message.content.forEach((block, index) => {
    const delta = (payload: Record<string, unknown>) => push('content_block_delta', { index, delta: payload });
    if (block.type === 'thinking') {
      push('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of (block.thinking as string).match(/.{1,8}/gs) ?? []) delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'signature_delta', signature: block.signature });
    } else if (block.type === 'text') {
      push('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of (block.text as string).match(/.{1,8}/gs) ?? []) delta({ type: 'text_delta', text: piece });
    } else if (block.type === 'tool_use') {
      push('content_block_start', { index, content_block: { ...block, input: {} } });
      delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) });
    } else {
      push('content_block_start', { index, content_block: block });
    }
    push('content_block_stop', { index });
  });
  push('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  push('message_stop', {});
  return events;
}

/** A scripted Anthropic Messages API on loopback; a request without the key is refused with 401. */
export async function startAnthropicProtocolServer(options: { apiKey: string }): Promise<ProtocolServer> {
  const nextCallId = callIds();
  let answered = 0;
  return startProtocolServer((request, response, next) => {
    // The API takes the key as `x-api-key` or, from newer SDKs, as a bearer token.
    const key = request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer\s+/i, '');
    if (key !== options.apiKey) {
      return sendJson(response, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    }
    if (request.method === 'GET' && request.path === '/v1/models') {
      return sendJson(response, 200, { data: [{ id: 'claude-sonnet-4-5', type: 'model', display_name: 'Claude Sonnet 4.5' }], has_more: false });
    }
    const reply = next();
    if (!reply) return sendJson(response, 500, { type: 'error', error: { type: 'api_error', message: 'scripted provider: no reply left' } });
    if (reply.type === 'error') {
      const type = reply.status === 429 ? 'rate_limit_error' : reply.status === 529 ? 'overloaded_error' : 'api_error';
      return sendJson(response, reply.status, { type: 'error', error: { type, message: reply.message } }, retryHeaders(reply));
    }
    answered += 1;
    const body = request.body as { model: string; stream?: boolean };
    const content = contentBlocks(reply, nextCallId);
    const message = {
      id: `msg_${answered}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: usageBlock(reply),
    };
    if (body.stream) return writeSse(response, messageEvents(message));
    sendJson(response, 200, message);
  });
}
