import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createFixtureOAuth } from './oauth-server.js';
import { createFixtureMcpServer } from './server.js';

/**
 * The fixture over HTTP, in a process of its own so tests can kill it:
 * `node --import tsx testing/src/mcp-fixture/http.ts --transport streamable_http|sse [--port N]
 *  [--require-header "Name: value"] [--oauth] [--no-event-stream]`; without `--port` it takes a port the system
 * gives it, and says which on its first line (`listening on http://127.0.0.1:<port>`). Streamable HTTP is served at
 * `/mcp` (with sessions, so a restarted server really forgets them), SSE at `/sse` with messages
 * posted to `/messages`.
 */
const { values } = parseArgs({
  options: {
    transport: { type: 'string' },
    port: { type: 'string' },
    'require-header': { type: 'string' },
    oauth: { type: 'boolean', default: false },
    'no-event-stream': { type: 'boolean', default: false },
  },
});
const transportKind = values.transport;
if (transportKind !== 'sse' && transportKind !== 'streamable_http') throw new Error('--transport must be sse or streamable_http');
const resourcePath = transportKind === 'sse' ? '/sse' : '/mcp';
const [requiredName, ...requiredValue] = (values['require-header'] ?? '').split(':');
/** Known once the server listens: the OAuth metadata names it. */
let baseUrl = '';
let oauth: ReturnType<typeof createFixtureOAuth> | undefined;

const streamable = new Map<string, StreamableHTTPServerTransport>();
const sse = new Map<string, SSEServerTransport>();

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

function allowed(req: IncomingMessage, res: ServerResponse): boolean {
  if (oauth && !oauth.authorized(req)) {
    oauth.refuse(res);
    return false;
  }
  if (requiredName && req.headers[requiredName.trim().toLowerCase()] !== requiredValue.join(':').trim()) {
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'missing or wrong credentials' }));
    return false;
  }
  return true;
}

function unknownSession(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
}

async function serveStreamable(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
  // Without the standalone event stream a client cannot notice the server went away until it sends.
  if (req.method === 'GET' && values['no-event-stream']) {
    res.writeHead(405).end();
    return;
  }
  const parsed = body ? JSON.parse(body) : undefined;
  const sessionId = req.headers['mcp-session-id'] as string | undefined;
  let transport = sessionId ? streamable.get(sessionId) : undefined;
  if (!transport) {
    if (sessionId || req.method !== 'POST' || !isInitializeRequest(parsed)) return unknownSession(res);
    const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void streamable.set(id, created) });
    created.onclose = () => created.sessionId && streamable.delete(created.sessionId);
    await createFixtureMcpServer().connect(created);
    transport = created;
  }
  await transport.handleRequest(req, res, parsed);
}

async function serveSse(req: IncomingMessage, res: ServerResponse, url: URL, body: string): Promise<void> {
  if (req.method === 'GET' && url.pathname === '/sse') {
    const transport = new SSEServerTransport('/messages', res);
    sse.set(transport.sessionId, transport);
    transport.onclose = () => sse.delete(transport.sessionId);
    await createFixtureMcpServer().connect(transport);
    return;
  }
  const transport = sse.get(url.searchParams.get('sessionId') ?? '');
  if (req.method !== 'POST' || url.pathname !== '/messages' || !transport) return unknownSession(res);
  await transport.handlePostMessage(req, res, JSON.parse(body));
}

const server = createServer((req, res) => {
  void (async () => {
    const url = new URL(req.url ?? '/', baseUrl);
    const body = await readBody(req);
    if (oauth?.handle(req, res, url, body)) return;
    if (!allowed(req, res)) return;
    if (transportKind === 'streamable_http' && url.pathname === '/mcp') return serveStreamable(req, res, body);
    if (transportKind === 'sse') return serveSse(req, res, url, body);
    res.writeHead(404).end();
  })().catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(String(error));
  });
});
server.listen(Number(values.port ?? 0), '127.0.0.1', () => {
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (values.oauth) oauth = createFixtureOAuth(baseUrl, resourcePath);
  console.log(`mcp fixture (${transportKind}) listening on ${baseUrl}`);
});
