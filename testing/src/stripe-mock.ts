import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { defaultCliCacheDir } from '@engram/temporal/dev-server';

/** Stripe's own API emulator; the payment tests send Engram's Stripe calls to it. */
export const STRIPE_MOCK_MODULE = 'github.com/stripe/stripe-mock@v0.203.0';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function goBinary(): string | undefined {
  const candidates = [...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'go')), '/usr/local/go/bin/go'];
  return candidates.find(isExecutable);
}

/** The cached stripe-mock binary, built from the Go module proxy the first time (about a minute). */
export function ensureStripeMock(options: { cacheDir?: string; log?: (line: string) => void } = {}): string {
  const cacheDir = options.cacheDir ?? defaultCliCacheDir();
  const binary = path.join(cacheDir, 'stripe-mock');
  if (isExecutable(binary)) return binary;
  const go = goBinary();
  if (!go) throw new Error('stripe-mock is missing and Go is not installed to build it.');
  mkdirSync(cacheDir, { recursive: true });
  options.log?.(`Building stripe-mock (${STRIPE_MOCK_MODULE}) into ${cacheDir}; this takes about a minute once.`);
  const build = spawnSync(go, ['install', STRIPE_MOCK_MODULE], {
    env: { ...process.env, GOBIN: cacheDir, CGO_ENABLED: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status !== 0 || !isExecutable(binary)) {
    throw new Error(`Building stripe-mock failed (go install exited ${build.status ?? build.signal}).`);
  }
  return binary;
}

export type StripeMock = {
  /** What STRIPE_API_BASE is set to. */
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
};

/** stripe-mock on loopback ports the system gives it (it prints which: the HTTP one is used); ready when it answers an authenticated request. */
export async function startStripeMock(binary: string, options: { startTimeoutMs?: number } = {}): Promise<StripeMock> {
  const child = spawn(binary, ['-http-addr', '127.0.0.1:0', '-https-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (Date.now() < deadline && child.exitCode === null) {
    const address = /Listening for HTTP at address: (127\.0\.0\.1:\d+)/.exec(output)?.[1];
    const url = address && `http://${address}`;
    const ready = url && (await fetch(`${url}/v1/balance`, { headers: { authorization: 'Bearer sk_test_123' } }).then((response) => response.ok, () => false));
    if (url && ready) return { url, process: child, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`stripe-mock did not start:\n${output}`);
}
