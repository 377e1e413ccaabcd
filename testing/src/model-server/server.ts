import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionBody, completionChunks, composeAnswer, estimateTokens } from './completion.js';
import { embeddingFor, encodeAsBase64Floats } from './embeddings.js';
import { awaitGate, pause, writeEventStream } from './sse.js';
import type { ChatRequest, ScriptedModelServer, ScriptStep } from './types.js';

const HOST = '127.0.0.1';
const DEFAULT_MODELS = ['scripted-model'];
const DEFAULT_EMBEDDING_DIMENSION = 32;
export const NO_REPLY_LEFT_MESSAGE = 'scripted model server: no scripted reply left';
const MALFORMED_JSON = '{"id": "chatcmpl-malformed", "choices": [';

type RequestHandler = (request: ChatRequest) => ScriptStep | undefined;
type EmbeddingsBody = { model: string; input: string | string[]; encoding_format?: 'float' | 'base64' };

class BadRequestError extends Error {}

function openAIErrorType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function defaultErrorCode(status: number): string | null {
  if (status === 401) return 'invalid_api_key';
  if (status === 429) return 'rate_limit_exceeded';
  return null;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, message: string, code?: string): void {
  const body = { error: { message, type: openAIErrorType(status), param: null, code: code ?? defaultErrorCode(status) } };
  sendJson(response, status, body, status === 429 ? { 'retry-after': '0' } : {});
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequestError('scripted model server: the request body is not valid JSON');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asChatRequest(body: unknown): ChatRequest {
  if (!isRecord(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    throw new BadRequestError('scripted model server: a chat completion needs `model` (string) and `messages` (array)');
  }
  return body as ChatRequest;
}

function asEmbeddingsBody(body: unknown): EmbeddingsBody {
  const input = isRecord(body) ? body.input : undefined;
  const inputIsText = typeof input === 'string' || (Array.isArray(input) && input.every((item) => typeof item === 'string'));
  if (!isRecord(body) || typeof body.model !== 'string' || !inputIsText) {
    throw new BadRequestError('scripted model server: embeddings need `model` (string) and `input` (string or string[])');
  }
  return body as EmbeddingsBody;
}

/** The path below the optional `/v1` prefix, so both `/v1/models` and `/models` route alike. */
function routePath(rawUrl: string | undefined): string {
  const { pathname } = new URL(rawUrl ?? '/', `http://${HOST}`);
  return pathname.replace(/^\/v1(?=\/|$)/, '').replace(/\/+$/, '');
}

/** Aborts when the client goes away before the response is complete. */
function disconnectSignal(response: ServerResponse): AbortSignal {
  const disconnected = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnected.abort();
  });
  return disconnected.signal;
}

async function listen(server: ReturnType<typeof createServer>, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Starts an OpenAI-compatible server on 127.0.0.1 that answers chat completions from a script. */
export async function startScriptedModelServer(
  options: { port?: number; models?: string[] } = {},
): Promise<ScriptedModelServer> {
  const initialModels = options.models ?? DEFAULT_MODELS;
  const queue: ScriptStep[] = [];
  const handlers: RequestHandler[] = [];
  const shutdown = new AbortController();
  const startedAt = Math.floor(Date.now() / 1000);
  let embeddingDimension = DEFAULT_EMBEDDING_DIMENSION;
  // Never reset, so completion and tool call ids stay unique for the server's whole life.
  let completionCount = 0;
  let closing: Promise<void> | undefined;

  const httpServer = createServer();
  const port = await listen(httpServer, options.port ?? 0);

  const modelServer: ScriptedModelServer = {
    url: `http://${HOST}:${port}/v1`,
    port,
    requests: [],
    embeddingRequests: [],
    models: [...initialModels],
    enqueue: (...steps) => {
      queue.push(...steps);
    },
    onRequest: (handler) => {
      handlers.push(handler);
    },
    setEmbeddingDimension: (dimension) => {
      if (!Number.isInteger(dimension) || dimension < 1) {
        throw new RangeError(`embedding dimension must be a positive integer, got ${dimension}`);
      }
      embeddingDimension = dimension;
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      handlers.length = 0;
      modelServer.requests.length = 0;
      modelServer.embeddingRequests.length = 0;
      modelServer.models = [...initialModels];
      embeddingDimension = DEFAULT_EMBEDDING_DIMENSION;
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        shutdown.abort();
        httpServer.close((error) => (error ? reject(error) : resolve()));
        httpServer.closeAllConnections();
      });
      return closing;
    },
  };

  function takeStep(request: ChatRequest): ScriptStep | undefined {
    const position = queue.findIndex((step) => step.match?.(request) ?? true);
    if (position >= 0) return queue.splice(position, 1)[0];
    for (const handler of handlers) {
      const step = handler(request);
      if (step) return step;
    }
    return undefined;
  }

  async function answerChatCompletion(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chatRequest = asChatRequest(await readJson(request));
    modelServer.requests.push(chatRequest);
    const step = takeStep(chatRequest);
    if (!step) return sendError(response, 500, NO_REPLY_LEFT_MESSAGE);
    // Left unanswered on purpose: the socket closes when the client aborts or close() ends it.
    if (step.type === 'hang') return;

    const signal = AbortSignal.any([shutdown.signal, disconnectSignal(response)]);
    if (step.until && !(await awaitGate(step.until, signal))) return;
    if (step.delayMs && !(await pause(step.delayMs, signal))) return;
    const streamOptions = { chunkDelayMs: step.chunkDelayMs ?? 0, signal };

    switch (step.type) {
      case 'error':
        return sendError(response, step.status, step.message, step.code);
      case 'malformed':
        if (chatRequest.stream) return writeEventStream(response, [MALFORMED_JSON], streamOptions);
        response.writeHead(200, { 'content-type': 'application/json' }).end(MALFORMED_JSON);
        return;
      case 'text':
      case 'tool_calls': {
        completionCount += 1;
        const answer = composeAnswer(step, chatRequest, completionCount);
        if (!chatRequest.stream) return sendJson(response, 200, completionBody(answer));
        const chunks = completionChunks(answer, chatRequest.stream_options?.include_usage === true);
        return writeEventStream(response, chunks.map((chunk) => JSON.stringify(chunk)), streamOptions);
      }
    }
  }

  async function answerEmbeddings(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = asEmbeddingsBody(await readJson(request));
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    modelServer.embeddingRequests.push({ model: body.model, input: inputs });
    const tokens = inputs.reduce((sum, text) => sum + estimateTokens(text.length), 0);
    sendJson(response, 200, {
      object: 'list',
      data: inputs.map((text, index) => {
        const vector = embeddingFor(text, embeddingDimension);
        return {
          object: 'embedding',
          index,
          embedding: body.encoding_format === 'base64' ? encodeAsBase64Floats(vector) : vector,
        };
      }),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  function listModels(response: ServerResponse): void {
    sendJson(response, 200, {
      object: 'list',
      data: modelServer.models.map((id) => ({ id, object: 'model', created: startedAt, owned_by: 'engram-test' })),
    });
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = routePath(request.url);
    if (request.method === 'POST' && path === '/chat/completions') return answerChatCompletion(request, response);
    if (request.method === 'POST' && path === '/embeddings') return answerEmbeddings(request, response);
    if (request.method === 'GET' && path === '/models') return listModels(response);
    sendError(response, 404, `scripted model server: no route for ${request.method} ${request.url}`);
  }

  httpServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    route(request, response).catch((error: unknown) => {
      if (response.headersSent || response.destroyed) return;
      const status = error instanceof BadRequestError ? 400 : 500;
      const message = error instanceof Error ? error.message : String(error);
      sendError(response, status, status === 500 ? `scripted model server: ${message}` : message);
    });
  });

  return modelServer;
}
