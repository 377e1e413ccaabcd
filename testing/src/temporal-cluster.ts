import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabaseIfMissing, dropDatabase } from '@engram/db';
import { SEARCH_ATTRIBUTES } from '@engram/temporal/client';
import { defaultCliCacheDir, TEMPORAL_CLI_MODULE, waitForTemporal } from '@engram/temporal/dev-server';
import { buildGoTools, isExecutable } from './go-tools.js';
import { reservePortInRange, startOnReservedPorts } from './ports.js';

/**
 * The Temporal server as a cluster runs it: `go.temporal.io/server` with PostgreSQL persistence, the shape of a
 * self-hosted Temporal that Engram scales out on. The pinned release is the one the pinned Temporal CLI embeds
 * as its dev server, so both test shapes run the same server code.
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';

/** Dependency versions come from the CLI's module: its build already compiled them, so this build takes seconds, not minutes. */
const CLI_MODULE_AT_VERSION = TEMPORAL_CLI_MODULE.replace('/cmd/temporal@', '@');

export type TemporalServerBinaries = { server: string; sqlTool: string };

/** The cached server and its `temporal-sql-tool`, built from the Go module proxy the first time. */
export function ensureTemporalServer(options: { cacheDir?: string; log?: (line: string) => void } = {}): TemporalServerBinaries {
  const cacheDir = options.cacheDir ?? defaultCliCacheDir();
  const binaries = {
    server: path.join(cacheDir, `temporal-server-${TEMPORAL_SERVER_VERSION}`),
    sqlTool: path.join(cacheDir, `temporal-sql-tool-${TEMPORAL_SERVER_VERSION}`),
  };
  if (isExecutable(binaries.server) && isExecutable(binaries.sqlTool)) return binaries;
  options.log?.(`Building the Temporal server and temporal-sql-tool ${TEMPORAL_SERVER_VERSION} into ${cacheDir} (after the Temporal CLI: under a minute; alone: several).`);
  buildGoTools({
    name: `the Temporal server ${TEMPORAL_SERVER_VERSION}`,
    requires: [CLI_MODULE_AT_VERSION],
    programs: [
      { packageAtVersion: `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`, output: binaries.server },
      { packageAtVersion: `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`, output: binaries.sqlTool },
    ],
  });
  return binaries;
}

/**
 * What a Temporal cluster needs set for Engram beyond its defaults; the README's "Outgrowing one machine"
 * names exactly these. Every search attribute Engram sets on a run is a Keyword.
 */
export const CLUSTER_DYNAMIC_CONFIG: Record<string, unknown> = {
  'system.enableActivityEagerExecution': true,
};
export const CLUSTER_SEARCH_ATTRIBUTES = SEARCH_ATTRIBUTES.map((key) => ({ name: key.name, type: 'Keyword' }));

export type TemporalCluster = {
  address: string;
  namespace: string;
  process: ChildProcess;
  /** Stops the server and drops its two databases. */
  stop(): Promise<void>;
};

export type TemporalClusterOptions = {
  /** A PostgreSQL server URL with the right to create databases: the cluster's two databases are created on it. */
  adminUrl: string;
  binaries: TemporalServerBinaries;
  /** The Temporal CLI, which registers the namespace and the search attributes as an operator would. */
  cliPath: string;
  namespace?: string;
  startTimeoutMs?: number;
};

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

async function retryUntil(what: string, attempt: () => { ok: boolean; output: string }, deadline: number): Promise<void> {
  for (;;) {
    const result = attempt();
    if (result.ok) return;
    if (Date.now() > deadline) throw new Error(`${what} failed: ${result.output}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * One Temporal server process with every service (frontend, history, matching, worker) on loopback ports of its
 * own, persisting to two fresh PostgreSQL databases whose schemas its own `temporal-sql-tool` sets up, with the
 * namespace and Engram's search attributes registered through the CLI.
 */
export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  const namespace = options.namespace ?? 'default';
  const suffix = randomBytes(4).toString('hex');
  const databases = { default: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
  const admin = new URL(options.adminUrl);
  const sqlEnv = {
    SQL_PLUGIN: 'postgres12',
    SQL_HOST: admin.hostname,
    SQL_PORT: admin.port || '5432',
    SQL_USER: decodeURIComponent(admin.username),
    SQL_PASSWORD: decodeURIComponent(admin.password),
  };
  const dropDatabases = async () => {
    for (const database of Object.values(databases)) await dropDatabase(options.adminUrl, database);
  };
  for (const [store, database] of Object.entries(databases)) {
    await createDatabaseIfMissing(options.adminUrl, database);
    for (const args of [['setup-schema', '-v', '0.0'], ['update-schema', '--schema-name', `postgresql/v12/${store === 'default' ? 'temporal' : 'visibility'}`]]) {
      const step = run(options.binaries.sqlTool, args, { ...sqlEnv, SQL_DATABASE: database });
      if (!step.ok) {
        await dropDatabases();
        throw new Error(`temporal-sql-tool ${args.join(' ')} on ${database} failed: ${step.output}`);
      }
    }
  }

  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${sqlEnv.SQL_HOST}:${sqlEnv.SQL_PORT}`,
      connectProtocol: 'tcp',
      user: sqlEnv.SQL_USER,
      password: sqlEnv.SQL_PASSWORD,
      maxConns,
      maxIdleConns: maxConns,
    },
  });
  /** A service's gRPC and membership (ringpop) ports, on loopback; membership ports go into a smallint column. */
  const rpc = async (grpcPort: number, extra: Record<string, unknown> = {}) => ({
    rpc: { grpcPort, membershipPort: await reservePortInRange(20_000, 32_000), bindOnLocalHost: true, ...extra },
  });

  /** The server on the ports it is given (it hands them to its services, so they are chosen up front). */
  const launch = async ([frontend, frontendHttp, history, matching, worker]: number[]): Promise<TemporalCluster> => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'engram-temporal-cluster-'));
    mkdirSync(path.join(root, 'config'));
    // YAML is a superset of JSON: the server reads these files as written.
    const config = {
      log: { stdout: true, level: 'warn', format: 'json' },
      persistence: {
        defaultStore: 'default',
        visibilityStore: 'visibility',
        numHistoryShards: 4,
        datastores: { default: datastore(databases.default, 10), visibility: datastore(databases.visibility, 4) },
      },
      global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
      services: {
        frontend: await rpc(frontend!, { httpPort: frontendHttp }),
        history: await rpc(history!),
        matching: await rpc(matching!),
        worker: await rpc(worker!),
      },
      clusterMetadata: {
        enableGlobalNamespace: false,
        failoverVersionIncrement: 10,
        masterClusterName: 'active',
        currentClusterName: 'active',
        clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${frontend}` } },
      },
      dcRedirectionPolicy: { policy: 'noop' },
      dynamicConfigClient: { filepath: path.join(root, 'config', 'dynamic-config.yaml'), pollInterval: '10s' },
    };
    const dynamicConfig = Object.fromEntries(Object.entries(CLUSTER_DYNAMIC_CONFIG).map(([key, value]) => [key, [{ value }]]));
    writeFileSync(path.join(root, 'config', 'development.yaml'), JSON.stringify(config, null, 2), { mode: 0o600 });
    writeFileSync(path.join(root, 'config', 'dynamic-config.yaml'), JSON.stringify(dynamicConfig, null, 2));

    const logFile = path.join(root, 'temporal-server.log');
    const out = openSync(logFile, 'a');
    const child = spawn(options.binaries.server, ['--root', root, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'], {
      stdio: ['ignore', out, out],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const address = `127.0.0.1:${frontend}`;
    const stopServer = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(root, { recursive: true, force: true });
    };
    try {
      const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
      await waitForTemporal(address, deadline - Date.now(), exited);
      const cli = (...args: string[]) => () => run(options.cliPath, ['operator', ...args, '--address', address]);
      // The frontend answers before the other services have joined it; until they have, the CLI gets "not enough hosts".
      await retryUntil(`registering namespace ${namespace}`, cli('namespace', 'create', '--namespace', namespace, '--retention', '24h'), deadline);
      const attributes = CLUSTER_SEARCH_ATTRIBUTES.flatMap(({ name, type }) => ['--name', name, '--type', type]);
      await retryUntil('registering the search attributes', cli('search-attribute', 'create', '--namespace', namespace, ...attributes), deadline);
    } catch (error) {
      const logTail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
      await stopServer();
      throw new Error(`${(error as Error).message}\nthe server's last log lines:\n${logTail}`);
    }
    return {
      address,
      namespace,
      process: child,
      stop: async () => {
        await stopServer();
        await dropDatabases();
      },
    };
  };

  try {
    return await startOnReservedPorts(5, launch);
  } catch (error) {
    await dropDatabases();
    throw error;
  }
}
