import { randomUUID } from 'node:crypto';
import { TenantModel } from './base-model.js';

export type McpOAuthSessionStatus = 'pending' | 'authorized' | 'error';

/** `mcp-oauth-<uuid4>`, as the public API names MCP OAuth sessions. */
export function newMcpOAuthSessionId(): string {
  return `mcp-oauth-${randomUUID()}`;
}

/**
 * One authorization-code flow for an MCP server: started by a connect call, completed by the OAuth
 * callback. The PKCE verifier, the client registration and the tokens are stored sealed.
 */
export class McpOAuthSession extends TenantModel {
  static override tableName = 'mcp_oauth_sessions';
  declare id: string;
  declare userId: string | null;
  declare mcpServerId: string | null;
  declare serverName: string;
  declare serverUrl: string;
  declare state: string;
  declare status: McpOAuthSessionStatus;
  declare authorizationUrl: string | null;
  declare redirectUri: string;
  declare codeVerifierEnc: string | null;
  declare clientInformationEnc: string | null;
  declare tokensEnc: string | null;
  declare errorMessage: string | null;
  declare expiresAt: Date;
}
