import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpOAuthSession, McpServer, newMcpOAuthSessionId, type Database, type SecretBox } from '@engram/db';
import { probeMcpServer, type McpConnectionPool, McpServerError, beginMcpAuthorization, completeMcpAuthorization, createMcpOAuthProvider, type McpOAuthState, assessToolHealth, type McpTransportConfig, type McpStdioPolicy } from '@engram/integrations/mcp';
import type { RequestContext } from '../../http/request-context.js';
import type { McpServerConfigInput } from './mcp-server-input.js';
import type { McpServerService } from './mcp-server-service.js';
import { transportConfigOf, type CheckedMcpTool } from './mcp-tool-service.js';
import type { McpToolRegistry } from './mcp-tool-registry.js';
import type { EgressPolicy } from '@engram/integrations/egress';

/** The events of a connect stream, as the reference server names them. */
export type McpConnectEvent =
  | { event: 'connection_attempt'; server_name: string }
  | { event: 'success'; tools: CheckedMcpTool[] }
  | { event: 'oauth_required'; message: string }
  | { event: 'authorization_url'; url: string; session_id: string }
  | { event: 'waiting_for_auth'; message: string }
  | { event: 'error'; message: string };

/** What `GET /tools/mcp/oauth/callback/{session_id}` answers. */
export type McpOAuthCallbackResult = { status: 'success'; message: string; server_url: string } | { status: 'error'; message: string };

export type McpOAuthServiceDeps = {
  db: Database;
  secrets: SecretBox;
  connections: Pick<McpConnectionPool, 'listTools' | 'release' | 'timeouts'>;
  servers: Pick<McpServerService, 'get' | 'targetFor'>;
  registry: McpToolRegistry;
  /** Discovery, registration and token requests of the OAuth flow go through it, as the server's own requests do. */
  egress: EgressPolicy;
  /** A stdio configuration being tried out is refused (422) where the organization may not run one. */
  stdio: McpStdioPolicy;
  /** How long a user has to authorize, and how often the stream looks for the callback. */
  authorizationTimeoutMs?: number;
  pollIntervalMs?: number;
};

/** What to connect to: a stored server, or a configuration being tried out before it is added. */
export type McpConnectTarget = { server: McpServer } | { serverName: string; config: McpServerConfigInput };

/**
 * Connecting to MCP servers that may need OAuth: tries a plain connection first; on an authorization
 * demand, starts the authorization-code flow (PKCE, dynamic client registration, through the SDK),
 * streams the URL the user must open, waits for the callback to exchange the code, and connects with
 * the tokens. Sessions live in `mcp_oauth_sessions`; tokens end up sealed on the server.
 */
export function createMcpOAuthService(deps: McpOAuthServiceDeps) {
  const { db, secrets, connections, servers, registry } = deps;
  const authorizationTimeoutMs = deps.authorizationTimeoutMs ?? 5 * 60_000;
  const pollIntervalMs = deps.pollIntervalMs ?? 500;

  const sealJson = (value: unknown) => (value === undefined ? null : secrets.encrypt(JSON.stringify(value)));
  const openJson = <T>(sealed: string | null): T | undefined => (sealed === null ? undefined : (JSON.parse(secrets.decrypt(sealed)) as T));

  /** The OAuth provider of a session: everything the SDK learns is stored on the session row, sealed. */
  function sessionProvider(session: McpOAuthSession) {
    return createMcpOAuthProvider({
      redirectUrl: session.redirectUri,
      state: session.state,
      stored: {
        clientInformation: openJson(session.clientInformationEnc),
        tokens: openJson(session.tokensEnc),
        codeVerifier: openJson(session.codeVerifierEnc),
      },
      save: async (update: McpOAuthState) => {
        const patch: Partial<McpOAuthSession> = {};
        if ('clientInformation' in update) patch.clientInformationEnc = sealJson(update.clientInformation);
        if ('tokens' in update) patch.tokensEnc = sealJson(update.tokens);
        if ('codeVerifier' in update) patch.codeVerifierEnc = sealJson(update.codeVerifier);
        await McpOAuthSession.query(db).forOrg(session.organizationId).findById(session.id).patch(patch);
      },
    });
  }

  const listChecked = async (config: McpTransportConfig, serverName: string): Promise<CheckedMcpTool[]> =>
    (await probeMcpServer(config, serverName, connections.timeouts)).map((tool) => ({ tool, health: assessToolHealth(tool) }));

  /** Waits for the callback to settle the session, the deadline, or the client to leave. */
  async function awaitCallback(ctx: RequestContext, sessionId: string, signal: AbortSignal): Promise<McpOAuthSession | undefined> {
    const deadline = Date.now() + authorizationTimeoutMs;
    while (!signal.aborted && Date.now() < deadline) {
      const session = await McpOAuthSession.query(db).forOrg(ctx.organizationId).findById(sessionId);
      if (!session || session.status !== 'pending') return session;
      await sleep(pollIntervalMs, undefined, { signal }).catch(() => undefined);
    }
    return undefined;
  }

  async function* authorize(
    ctx: RequestContext,
    target: McpConnectTarget,
    serverName: string,
    config: Extract<McpTransportConfig, { type: 'sse' | 'streamable_http' }>,
    callbackBase: string,
    signal: AbortSignal,
  ): AsyncGenerator<McpConnectEvent> {
    const serverUrl = config.url;
    const id = newMcpOAuthSessionId();
    const session = await McpOAuthSession.query(db)
      .insert({
        id,
        organizationId: ctx.organizationId,
        userId: ctx.userId,
        mcpServerId: 'server' in target ? target.server.id : null,
        serverName,
        serverUrl,
        state: randomBytes(32).toString('base64url'),
        status: 'pending',
        authorizationUrl: null,
        redirectUri: `${callbackBase}/${id}`,
        codeVerifierEnc: null,
        clientInformationEnc: null,
        tokensEnc: null,
        errorMessage: null,
        expiresAt: new Date(Date.now() + authorizationTimeoutMs),
      })
      .returning('*');
    let authorizationUrl: URL;
    try {
      authorizationUrl = await beginMcpAuthorization(sessionProvider(session), serverUrl, serverName, config.fetch);
    } catch (error) {
      if (!(error instanceof McpServerError)) throw error;
      await session.$query(db).patch({ status: 'error', errorMessage: error.message });
      yield { event: 'error', message: error.message };
      return;
    }
    await session.$query(db).patch({ authorizationUrl: authorizationUrl.href });
    yield { event: 'oauth_required', message: `MCP server '${serverName}' requires OAuth authorization` };
    yield { event: 'authorization_url', url: authorizationUrl.href, session_id: id };
    yield { event: 'waiting_for_auth', message: 'Waiting for the user to authorize in the browser...' };

    const settled = await awaitCallback(ctx, id, signal);
    if (!settled || settled.status !== 'authorized') {
      const message = settled?.errorMessage ?? 'Authorization was not completed in time';
      if (!settled) await session.$query(db).patch({ status: 'error', errorMessage: message });
      yield { event: 'error', message };
      return;
    }

    try {
      if ('server' in target) {
        // The callback stored the tokens on the server: connect as every later use will, and register its tools.
        const server = await servers.get(ctx, target.server.id);
        const live = await connections.listTools(servers.targetFor(server));
        await registry.sync(ctx, server, live, { addNew: true });
        yield { event: 'success', tools: live.map((tool) => ({ tool, health: assessToolHealth(tool) })) };
      } else {
        yield { event: 'success', tools: await listChecked({ ...config, authProvider: sessionProvider(settled) }, serverName) };
      }
    } catch (error) {
      if (!(error instanceof McpServerError)) throw error;
      yield { event: 'error', message: error.message };
    }
  }

  async function* connectEvents(
    ctx: RequestContext,
    target: McpConnectTarget,
    serverName: string,
    config: McpTransportConfig,
    callbackBase: string,
    signal: AbortSignal,
  ): AsyncGenerator<McpConnectEvent> {
    yield { event: 'connection_attempt', server_name: serverName };
    let failure: McpServerError;
    try {
      yield { event: 'success', tools: await listChecked(config, serverName) };
      return;
    } catch (error) {
      if (!(error instanceof McpServerError)) throw error;
      failure = error;
    }
    if (failure.kind !== 'authorization_required') {
      yield { event: 'error', message: failure.message };
      return;
    }
    if (config.type === 'stdio') {
      yield { event: 'error', message: 'OAuth is not supported for stdio servers' };
      return;
    }
    yield* authorize(ctx, target, serverName, config, callbackBase, signal);
  }

  return {
    /**
     * `POST /tools/mcp/servers/connect` and `GET /mcp-servers/connect/{id}`: the events of one
     * connection attempt, with the OAuth flow when the server asks for it. `callbackBase` is the
     * public URL of the callback route, without the session id. A configuration being tried out whose
     * URL the egress policy refuses is refused here (422), before any event.
     */
    async connect(ctx: RequestContext, target: McpConnectTarget, callbackBase: string): Promise<(signal: AbortSignal) => AsyncGenerator<McpConnectEvent>> {
      const serverName = 'server' in target ? target.server.serverName : target.serverName;
      const config = 'server' in target ? servers.targetFor(target.server).config : await transportConfigOf(deps, ctx, target.config);
      return (signal) => connectEvents(ctx, target, serverName, config, callbackBase, signal);
    },

    /**
     * The OAuth redirect lands here, without API credentials: the session id and its random `state`
     * together are what authorize the request. The code is exchanged at once (PKCE), and the tokens
     * are stored sealed on the session and, for a stored server, on the server.
     */
    async completeCallback(sessionId: string, query: { code?: string; state?: string; error?: string; error_description?: string }): Promise<McpOAuthCallbackResult> {
      // Deliberately not scoped to an organization: the caller is a browser coming back from the authorization server.
      const session = await McpOAuthSession.query(db).findById(sessionId);
      if (!session || session.status !== 'pending') return { status: 'error', message: 'No pending OAuth session with this id' };
      if (!query.state || query.state !== session.state) return { status: 'error', message: 'Invalid state parameter' };
      const fail = async (message: string): Promise<McpOAuthCallbackResult> => {
        await session.$query(db).patch({ status: 'error', errorMessage: message });
        return { status: 'error', message };
      };
      if (session.expiresAt.getTime() < Date.now()) return fail('The OAuth session expired; connect again');
      if (query.error) return fail(`OAuth error: ${query.error}${query.error_description ? ` - ${query.error_description}` : ''}`);
      if (!query.code) return fail('Missing authorization code');

      try {
        await completeMcpAuthorization(sessionProvider(session), session.serverUrl, session.serverName, query.code, deps.egress.fetchFor({ organizationId: session.organizationId }));
      } catch (error) {
        if (!(error instanceof McpServerError)) throw error;
        return fail(error.message);
      }
      const authorized = await session.$query(db).patchAndFetch({ status: 'authorized' });
      if (authorized.mcpServerId) {
        await McpServer.query(db)
          .forOrg(authorized.organizationId)
          .findById(authorized.mcpServerId)
          .patch({ oauthTokensEnc: authorized.tokensEnc, oauthClientInformationEnc: authorized.clientInformationEnc });
        await connections.release(authorized.mcpServerId);
      }
      return { status: 'success', message: 'Authorization successful', server_url: authorized.serverUrl };
    },
  };
}

export type McpOAuthService = ReturnType<typeof createMcpOAuthService>;
