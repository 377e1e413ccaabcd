import type { ServerResponse } from 'node:http';
import { embeddingFor } from '../embeddings.js';
import {
  callIds,
  retryHeaders,
  sendJson,
  startProtocolServer,
  usageOf,
  writeSse,
  type ProtocolServer,
  type ProviderReply,
  type ReceivedRequest,
} from './script.js';

type Answer = Extract<ProviderReply, { type: 'answer' }>;

export type OpenAiProtocolServer = ProtocolServer & { models: string[] };

/** The key a request carries: OpenAI's bearer token or Azure's `api-key` header. */
function keyOf(request: ReceivedRequest): string | undefined {
  const apiKey = request.headers['api-key'];
  if (typeof apiKey === 'string') return apiKey;
  return request.headers.authorization?.replace(/^Bearer\s+/i, '');
}

function responseObject(reply: Answer, model: string, id: number, nextCallId: ReturnType<typeof callIds>) {
  const output: Array<Record<string, unknown>> = [];
  if (reply.reasoning !== undefined || reply.hiddenReasoning !== undefined) {
    output.push({
      type: 'reasoning',
      id: `rs_${id}`,
      summary: reply.reasoning ? [{ type: 'summary_text', text: reply.reasoning }] : [],
      encrypted_content: reply.hiddenReasoning ?? reply.signature ?? null,
    });
  }
  if (reply.text) {
    output.push({
      type: 'message',
      id: `msg_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  for (const call of reply.calls ?? []) {
    output.push({ type: 'function_call', id: `fc_${id}_${output.length}`, call_id: nextCallId(call), name: call.name, arguments: JSON.stringify(call.arguments), status: 'completed' });
  }
  const usage = usageOf(reply);
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model,
    output,
    error: null,
    incomplete_details: null,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: usage.cached ?? 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
      total_tokens: usage.input + usage.output,
    },
  };
}

/** The Responses API's stream: every output item added, its deltas, done; then the whole response. */
function responseEvents(response: ReturnType<typeof responseObject>): Array<{ event: string; data: unknown }> {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => ({ event: type, data: { type, sequence_number: sequence++, ...data } });
  const events = [event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } })];
  response.output.forEach((item, outputIndex) => {
    if (item.type === 'reasoning') {
      events.push(event('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [], encrypted_content: null } }));
      for (const part of item.summary as Array<{ text: string }>) {
        for (const piece of part.text.match(/.{1,8}/gs) ?? []) {
          events.push(event('response.reasoning_summary_text.delta', { item_id: item.id, output_index: outputIndex, summary_index: 0, delta: piece }));
        }
      }
    } else if (item.type === 'message') {
      events.push(event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } }));
      const text = (item.content as Array<{ text: string }>)[0]!.text;
      for (const piece of text.match(/.{1,8}/gs) ?? []) {
        events.push(event('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta: piece }));
      }
    } else {
      events.push(event('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } }));
      events.push(event('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: item.arguments }));
    }
    events.push(event('response.output_item.done', { output_index: outputIndex, item }));
  });
  events.push(event('response.completed', { response }));
  return events;
}

function chatCompletion(reply: Answer, model: string, id: number, nextCallId: ReturnType<typeof callIds>) {
  const usage = usageOf(reply);
  const calls = (reply.calls ?? []).map((call) => ({ id: nextCallId(call), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }));
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.text ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
      completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    },
  };
}

function chatChunks(completion: ReturnType<typeof chatCompletion>) {
  const choice = completion.choices[0]!;
  const base = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model };
  const chunks: unknown[] = [];
  if (choice.message.content) chunks.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: choice.message.content }, finish_reason: null }] });
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }] });
  });
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] });
  chunks.push({ ...base, choices: [], usage: completion.usage });
  return chunks;
}

function writeChatStream(response: ServerResponse, chunks: unknown[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.end('data: [DONE]\n\n');
}

/**
 * A scripted OpenAI on loopback: the Responses API and Chat Completions (at any prefix, so Azure OpenAI's
 * `/openai/deployments/{deployment}/…` and `/openai/…` paths route too), model lists and embeddings. A request
 * without `apiKey` (bearer token or `api-key` header) is refused with 401, as OpenAI and Azure refuse a bad key.
 */
export async function startOpenAiProtocolServer(options: { apiKey: string; models?: string[] }): Promise<OpenAiProtocolServer> {
  const nextCallId = callIds();
  let answered = 0;
  const models = { list: options.models ?? ['gpt-5-mini', 'gpt-4o-mini', 'text-embedding-3-small'] };
  const server = await startProtocolServer((request, response, next) => {
    if (keyOf(request) !== options.apiKey) {
      return sendJson(response, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    if (request.method === 'GET' && request.path.endsWith('/models')) {
      return sendJson(response, 200, { object: 'list', data: models.list.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })) });
    }
    const body = request.body as { model: string; stream?: boolean; input?: string | string[] };
    if (request.path.endsWith('/embeddings')) {
      const inputs = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
      return sendJson(response, 200, {
        object: 'list',
        data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: embeddingFor(text, 32) })),
        model: body.model,
        usage: { prompt_tokens: 1, total_tokens: 1 },
      });
    }
    const reply = next();
    if (!reply) return sendJson(response, 500, { error: { message: 'scripted provider: no reply left', type: 'server_error' } });
    if (reply.type === 'error') {
      const type = reply.status === 429 ? 'rate_limit_exceeded' : 'server_error';
      return sendJson(response, reply.status, { error: { message: reply.message, type, code: type } }, retryHeaders(reply));
    }
    answered += 1;
    // Azure names the deployment in the path; the answer names the model the deployment serves.
    const model = body.model ?? /\/deployments\/([^/]+)\//.exec(request.path)?.[1] ?? 'deployment';
    if (request.path.endsWith('/responses')) {
      const whole = responseObject(reply, model, answered, nextCallId);
      return body.stream ? writeSse(response, responseEvents(whole)) : sendJson(response, 200, whole);
    }
    if (request.path.endsWith('/chat/completions')) {
      const completion = chatCompletion(reply, model, answered, nextCallId);
      return body.stream ? writeChatStream(response, chatChunks(completion)) : sendJson(response, 200, completion);
    }
    sendJson(response, 404, { error: { message: `scripted provider: no route for ${request.method} ${request.path}` } });
  });
  return Object.defineProperty(server, 'models', { get: () => models.list, set: (list: string[]) => (models.list = list), enumerable: true }) as OpenAiProtocolServer;
}
