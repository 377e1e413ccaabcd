import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFixtureMcpServer } from './server.js';

/** The fixture over stdio: `node --import tsx testing/src/mcp-fixture/stdio.ts`. */
const server = createFixtureMcpServer({ echoPrefix: process.env.ECHO_PREFIX });
await server.connect(new StdioServerTransport());
// The client closing our stdin is the end of the session.
process.stdin.once('end', () => process.exit(0));
