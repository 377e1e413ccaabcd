import { expect } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { Agent, Message } from '@engram/db';
import { startScriptedModelServer } from './model-server/index.js';
import type { ScriptedModelServer } from './model-server/index.js';
import { startTestStack, type TestStack, type TestStackOptions } from './stack.js';

/** Response bodies are checked field by field, so they are read untyped. */
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** A response already read: its status and its parsed JSON body (undefined when empty). */
export type ParsedResponse = { status: number; body: any };

/** A fetch init for a `/v1` call; `key` replaces the stack's own API key. */
export type ApiInit = Omit<RequestInit, 'headers'> & { key?: string; headers?: Record<string, string> };

export type AgentTestContextOptions = Omit<TestStackOptions, 'baseProviders'> & {
  /** The model ids the scripted model server lists (default: `gpt-4o-mini`). */
  models?: string[];
};

export type AgentTestContext = {
  stack: TestStack;
  /** The scripted model server behind the stack's `openai` base provider. */
  model: ScriptedModelServer;
  /** A `@letta-ai/letta-client` client with the stack's own key. */
  client: Letta;
  /** A client with another key, e.g. one of `stack.createTenant()`. */
  clientFor(apiKey: string): Letta;
  /**
   * fetch for `/v1${path}`, with the stack's key (or `init.key`) as bearer token, and
   * `content-type: application/json` when there is a body. `init.headers` go last.
   */
  api(path: string, init?: ApiInit): Promise<JsonResponse>;
  /** `api` with `body` as JSON (no body when it is undefined). */
  send(method: string, path: string, body?: unknown, key?: string): Promise<JsonResponse>;
  post(path: string, body?: unknown, key?: string): Promise<JsonResponse>;
  patch(path: string, body?: unknown, key?: string): Promise<JsonResponse>;
  /** `requestV1` against this stack: the status and parsed body of a `/v1` call with `apiKey`. */
  call(apiKey: string, method: string, path: string, body?: unknown): Promise<ParsedResponse>;
  /** The text of an agent's system message, read from the database (and checked to be one). */
  systemMessageText(agentId: string): Promise<string>;
  /** Stops the stack, then the model server. */
  stop(): Promise<void>;
};

/** The status and parsed JSON body of a `/v1` call to the API at `baseUrl`. */
export async function requestV1(baseUrl: string, apiKey: string, method: string, path: string, body?: unknown): Promise<ParsedResponse> {
  const response = await fetch(`${baseUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * What an API test file of `/v1` needs: a scripted model server, a test stack whose `openai` base
 * provider is that server, and ways to call the stack (the real Letta client and plain fetch).
 * Meant for the top level of a test file, with `afterAll(stop)` after it.
 */
export async function startAgentTestContext(options: AgentTestContextOptions = {}): Promise<AgentTestContext> {
  const { models = ['gpt-4o-mini'], ...stackOptions } = options;
  const model = await startScriptedModelServer({ models });
  let stack: TestStack;
  try {
    stack = await startTestStack({
      ...stackOptions,
      baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    });
  } catch (error) {
    await model.close();
    throw error;
  }
  const clientFor = (apiKey: string) => new Letta({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });

  const api = (path: string, init: ApiInit = {}): Promise<JsonResponse> => {
    const { key, headers, ...rest } = init;
    return fetch(`${stack.baseUrl}/v1${path}`, {
      ...rest,
      headers: {
        authorization: `Bearer ${key ?? stack.apiKey}`,
        ...(rest.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
    });
  };
  const send = (method: string, path: string, body?: unknown, key?: string) =>
    api(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }), ...(key ? { key } : {}) });

  return {
    stack,
    model,
    client: clientFor(stack.apiKey),
    clientFor,
    api,
    send,
    post: (path, body, key) => send('POST', path, body, key),
    patch: (path, body, key) => send('PATCH', path, body, key),
    call: (apiKey, method, path, body) => requestV1(stack.baseUrl, apiKey, method, path, body),
    async systemMessageText(agentId) {
      const agent = await Agent.query(stack.db).findById(agentId);
      const message = await Message.query(stack.db).findById(agent!.messageIds[0]!);
      expect(message?.role).toBe('system');
      return message!.content.map((part) => (part.type === 'text' ? (part as { text: string }).text : '')).join('');
    },
    async stop() {
      await stack.stop();
      await model.close();
    },
  };
}
