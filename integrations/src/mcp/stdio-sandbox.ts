import { chown, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEgressProxy, type EgressPolicy, type EgressProxy } from '../egress/index.js';
import { sandboxEnvironment } from '../sandbox/child-process.js';
import { detectSandboxIsolation, SANDBOX_UID, type SandboxIsolation } from '../sandbox/isolation.js';
import { McpServerError } from './errors.js';
import type { McpStdioConfig } from './stdio-config.js';

/** A stdio server as its configuration names it. */
export type StdioServerCommand = { command: string; args: string[]; env: Record<string, string> };

/** What the MCP client spawns for a stdio server, and what to clean up once that process is gone. */
export type LaunchedStdioServer = { command: string; args: string[]; env: Record<string, string>; release(): Promise<void> };

/** Starts a stdio server for one organization, or refuses to (`McpServerError` of kind `refused`). */
export type StdioLauncher = (server: StdioServerCommand, serverName: string) => Promise<LaunchedStdioServer>;

export type McpStdioPolicyOptions = McpStdioConfig & {
  /** The organization `npm start` created on its first start (`organizations.first_start`), if any. */
  firstOrganizationId: string | null;
  /** A server's connections go through the egress proxy, so its organization's egress policy applies. */
  egress: Pick<EgressPolicy, 'fetchFor' | 'connect'>;
  /** Found once at start (`detectSandboxIsolation`) by a process that has it already; probed on first use otherwise. */
  isolation?: SandboxIsolation;
};

/**
 * Runs inside the sandbox before the server: its network namespace holds only loopback, so a port there forwards
 * to the egress proxy's socket, and the server is started with the proxy variables pointing at it. Programs that
 * ignore those variables have no network at all. stdin, stdout and stderr are the server's own.
 */
const NETWORK_BRIDGE = `
const { spawn } = require('node:child_process');
const { connect, createServer } = require('node:net');
const { constants } = require('node:os');
const [socketPath, command, ...args] = process.argv.slice(1);
const bridge = createServer((client) => {
  const upstream = connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
});
bridge.listen(0, '127.0.0.1', () => {
  const proxy = 'http://127.0.0.1:' + bridge.address().port;
  const routed = { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, ALL_PROXY: proxy, NO_PROXY: '', NODE_USE_ENV_PROXY: '1' };
  for (const [name, value] of Object.entries(routed)) routed[name.toLowerCase()] = value;
  const server = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...routed } });
  server.on('error', (error) => {
    process.stderr.write(command + ' could not be started: ' + error.message + '\\n');
    process.exit(127);
  });
  server.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
  for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(name, () => server.kill(name));
});
`;

/** A configured path and, where it is reached through links, the directory it really is: both are mounted. */
async function readOnlyMounts(paths: string[]): Promise<string[]> {
  const mounts = new Set<string>();
  for (const entry of paths) {
    mounts.add(entry);
    const real = await realpath(entry).catch(() => entry);
    mounts.add(real);
  }
  return [...mounts].flatMap((entry) => ['--ro-bind-try', entry, entry]);
}

/**
 * Who may run stdio MCP servers (ENGRAM_MCP_STDIO), and how they run: every one in bubblewrap, with its own
 * namespaces, as `nobody`, seeing the system directories and ENGRAM_MCP_STDIO_READ_ONLY_PATHS read-only, a fresh
 * /tmp and a scratch home of its own, no environment but its configuration's (with PATH), and no network but the
 * egress proxy for its organization. Without bubblewrap, stdio servers do not run at all.
 */
export function createMcpStdioPolicy(options: McpStdioPolicyOptions) {
  let isolation: Promise<SandboxIsolation> | undefined = options.isolation ? Promise.resolve(options.isolation) : undefined;
  const sandboxIsolation = () => (isolation ??= detectSandboxIsolation({ allowUnsafeLocalTools: false }));

  /** Why the organization may not run stdio servers, or null when it may. */
  function refusalOf(organizationId: string): string | null {
    if (options.mode === 'all') return null;
    if (options.mode === 'first-organization' && organizationId === options.firstOrganizationId) return null;
    return options.mode === 'none'
      ? 'stdio MCP servers (a command run on this platform) are disabled on this server (ENGRAM_MCP_STDIO=none); use an sse or streamable_http server'
      : "stdio MCP servers (a command run on this platform) are only available to the instance operator's organization (ENGRAM_MCP_STDIO=first-organization); use an sse or streamable_http server";
  }

  async function launch(organizationId: string, server: StdioServerCommand, serverName: string): Promise<LaunchedStdioServer> {
    const refusal = refusalOf(organizationId);
    if (refusal) throw new McpServerError('refused', `MCP server '${serverName}' cannot be started: ${refusal}`, true);
    const found = await sandboxIsolation();
    if (found.kind !== 'bubblewrap') {
      const reason = found.kind === 'refused' ? found.reason : 'bubblewrap could not start';
      throw new McpServerError('refused', `MCP server '${serverName}' cannot be started: stdio servers run only in the bubblewrap sandbox, and ${reason}`, true);
    }
    const home = await mkdtemp(path.join(tmpdir(), 'engram-mcp-'));
    let proxy: EgressProxy | undefined;
    const release = async () => {
      await proxy?.close();
      await rm(home, { recursive: true, force: true });
    };
    try {
      if (found.dropToUid !== null) await chown(home, found.dropToUid, found.dropToUid);
      const socketPath = path.join(home, '.egress.sock');
      proxy = await startEgressProxy({ egress: options.egress, scope: { organizationId }, socketPath });
      const environment = Object.entries(sandboxEnvironment(home, server.env)).flatMap(([name, value]) => ['--setenv', name, value]);
      const bwrapArgs = [
        // Every namespace, the network's too: the only way out is the egress proxy's socket in the scratch home.
        '--unshare-all',
        '--die-with-parent',
        '--new-session',
        ...(found.dropToUid === null ? ['--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID)] : []),
        '--hostname',
        'sandbox',
        '--clearenv',
        ...environment,
        ...found.systemMounts,
        // The fresh /tmp first, so a readable path under /tmp is mounted into it rather than hidden by it.
        '--tmpfs',
        '/tmp',
        ...(await readOnlyMounts(options.readOnlyPaths)),
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        '--bind',
        home,
        home,
        '--chdir',
        home,
        '--remount-ro',
        '/',
        '--',
        process.execPath,
        '-e',
        NETWORK_BRIDGE,
        '--',
        socketPath,
        server.command,
        ...server.args,
      ];
      // Root starts bubblewrap as `nobody` (setpriv execs it), so nothing outside the sandbox is reached as root.
      const launched =
        found.dropToUid === null
          ? { command: found.bwrapPath, args: bwrapArgs }
          : { command: '/usr/bin/setpriv', args: [`--reuid=${found.dropToUid}`, `--regid=${found.dropToUid}`, '--clear-groups', '--', found.bwrapPath, ...bwrapArgs] };
      let released: Promise<void> | undefined;
      return { ...launched, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, release: () => (released ??= release()) };
    } catch (error) {
      await release();
      throw error;
    }
  }

  return {
    /** Whether the organization may run stdio servers at all (checked when one is configured, again when one starts). */
    refusalOf,
    /** Starts stdio servers for the organization, sandboxed, or refuses to. */
    launcherFor(organizationId: string): StdioLauncher {
      return (server, serverName) => launch(organizationId, server, serverName);
    },
  };
}

export type McpStdioPolicy = ReturnType<typeof createMcpStdioPolicy>;
