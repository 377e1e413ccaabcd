import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export type FixtureServerOptions = {
  /** Prepended to what `echo` returns, so tests can see a stdio server's environment arrived. */
  echoPrefix?: string;
};

/**
 * The MCP server the tests talk to, built with the same SDK Engram's client uses: `echo(text)`,
 * `add(a, b)`, `slow(ms)` (answers after `ms`, to provoke timeouts) and `crash()` (the process
 * dies mid-call, to show a server being reconnected).
 */
export function createFixtureMcpServer(options: FixtureServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'engram-fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    { title: 'Echo', description: 'Returns the text it is given.', inputSchema: { text: z.string().describe('The text to return') }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text: `${options.echoPrefix ?? ''}${text}` }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'slow',
    { description: 'Waits `ms` milliseconds, then answers.', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  server.registerTool('crash', { description: 'Ends the server process at once, as a crash would.', inputSchema: {} }, async () => process.exit(1));
  return server;
}
