import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCliCacheDir } from '@engram/temporal/dev-server';
import { buildGoTools, isExecutable } from './go-tools.js';
import { startOnReservedPorts } from './ports.js';

/**
 * Jaeger, the OTLP collector the export tests send to. `go install …@v1.76.0` refuses it (its module has replace
 * directives), so it is built as a Go tool of a throwaway module (`buildGoTools`), into the same cache as the Temporal CLI.
 */
export const JAEGER_VERSION = 'v1.76.0';
const JAEGER_PACKAGE = 'github.com/jaegertracing/jaeger/cmd/jaeger';

/** The cached Jaeger binary, built from the Go module proxy the first time (a few minutes). */
export function ensureJaeger(options: { cacheDir?: string; log?: (line: string) => void } = {}): string {
  const cacheDir = options.cacheDir ?? defaultCliCacheDir();
  const binary = path.join(cacheDir, 'jaeger');
  if (isExecutable(binary)) return binary;
  options.log?.(`Building Jaeger ${JAEGER_VERSION} into ${cacheDir}; this takes a few minutes once.`);
  buildGoTools({ name: 'Jaeger', programs: [{ packageAtVersion: `${JAEGER_PACKAGE}@${JAEGER_VERSION}`, output: binary }] });
  return binary;
}

export type JaegerCollector = {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: OTLP over HTTP. */
  otlpEndpoint: string;
  /** The query API (`/api/traces/{traceId}`, `/api/services`), as Jaeger's UI reads it. */
  queryUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
};

/** All-in-one Jaeger with in-memory storage on loopback ports of its own; it is ready when the query API answers. */
export function startJaeger(binary: string, options: { startTimeoutMs?: number } = {}): Promise<JaegerCollector> {
  // Its ports are written into its configuration, so they are chosen before it starts.
  return startOnReservedPorts(3, (ports) => launchJaeger(binary, ports, options.startTimeoutMs ?? 30_000));
}

async function launchJaeger(binary: string, [otlpPort, queryPort, queryGrpcPort]: number[], startTimeoutMs: number): Promise<JaegerCollector> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'engram-jaeger-'));
  const config = path.join(dir, 'jaeger.yaml');
  writeFileSync(
    config,
    `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
extensions:
  jaeger_storage:
    backends:
      memory_store:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memory_store
    http:
      endpoint: 127.0.0.1:${queryPort}
    grpc:
      endpoint: 127.0.0.1:${queryGrpcPort}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlpPort}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memory_store
`,
  );
  const logFile = path.join(dir, 'jaeger.log');
  const log = openSync(logFile, 'a');
  const child = spawn(binary, ['--config', config], { stdio: ['ignore', log, log] });
  const queryUrl = `http://127.0.0.1:${queryPort}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`${queryUrl}/api/services`).then((response) => response.ok, () => false);
    if (ready) return { otlpEndpoint: `http://127.0.0.1:${otlpPort}`, queryUrl, process: child, stop };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const logTail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
  await stop();
  throw new Error(`Jaeger did not start; its last log lines:\n${logTail}`);
}
