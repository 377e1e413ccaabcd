/**
 * Local-sandbox tool round trip: one call = a fresh child process in its own temp directory, JSON
 * arguments in, JSON result out; timed as the worker runs it (inside bubblewrap) and bare on the host,
 * so the difference is what the sandbox costs (aim: at most 30 ms). Load averages are printed: on a busy
 * machine every program start waits for a core, which inflates the sandbox's share.
 * Run: node --import tsx bench/sandbox-round-trip.ts [--samples 40]
 */
import { availableParallelism, loadavg } from 'node:os';
import { detectSandboxIsolation, runInLocalSandbox, type LocalSandboxInput, type SandboxIsolation } from '@engram/integrations/sandbox';

const samples = Number(process.argv[process.argv.indexOf('--samples') + 1] || 40);

const TOOLS: Array<Pick<LocalSandboxInput, 'language' | 'sourceCode' | 'functionName'>> = [
  { language: 'python', functionName: 'add', sourceCode: 'def add(a: int, b: int) -> int:\n    return a + b\n' },
  { language: 'typescript', functionName: 'add', sourceCode: 'export function add(a: number, b: number): number {\n  return a + b;\n}\n' },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const sandboxed = await detectSandboxIsolation({ allowUnsafeLocalTools: false });
if (sandboxed.kind !== 'bubblewrap') throw new Error(`this machine cannot sandbox tools: ${JSON.stringify(sandboxed)}`);
const bare: SandboxIsolation = { kind: 'host', warning: 'the benchmark baseline' };
console.log(`load averages: ${loadavg().map((load) => load.toFixed(2)).join(' ')} on ${availableParallelism()} cores`);

type Timings = { host: number[]; bubblewrap: number[]; difference: number[] };

async function roundTrip(tool: (typeof TOOLS)[number], isolation: SandboxIsolation, index: number): Promise<number> {
  const started = performance.now();
  const outcome = await runInLocalSandbox({ ...tool, args: { a: index, b: 1 }, env: {}, isolation, timeoutMs: 10_000, maxOutputBytes: 1 << 20, memoryLimitMb: 512 });
  if (outcome.status !== 'success' || outcome.funcReturn !== String(index + 1)) throw new Error(`unexpected result: ${JSON.stringify(outcome)}`);
  return performance.now() - started;
}

/**
 * Host and sandbox calls alternate, one of each per sample and in turns which goes first, so the load of a
 * shared machine weighs on both alike; the cost is the median of the per-sample differences.
 */
async function measure(tool: (typeof TOOLS)[number]): Promise<Timings> {
  const timings: Timings = { host: [], bubblewrap: [], difference: [] };
  for (let index = 0; index < samples + 5; index++) {
    const hostFirst = index % 2 === 0;
    const first = await roundTrip(tool, hostFirst ? bare : sandboxed, index);
    const second = await roundTrip(tool, hostFirst ? sandboxed : bare, index);
    if (index < 5) continue;
    const [host, bubblewrap] = hostFirst ? [first, second] : [second, first];
    timings.host.push(host);
    timings.bubblewrap.push(bubblewrap);
    timings.difference.push(bubblewrap - host);
  }
  for (const series of Object.values(timings)) series.sort((a, b) => a - b);
  return timings;
}

for (const tool of TOOLS) {
  const timings = await measure(tool);
  for (const label of ['host', 'bubblewrap'] as const) {
    const series = timings[label];
    console.log(`${tool.language.padEnd(10)} ${label.padEnd(10)} round trip  p50 ${percentile(series, 50).toFixed(1)} ms  p99 ${percentile(series, 99).toFixed(1)} ms  (n=${series.length})`);
  }
  console.log(`${tool.language.padEnd(10)} sandbox cost  p50 +${percentile(timings.difference, 50).toFixed(1)} ms  (median of per-sample differences)`);
}
