/**
 * Local-sandbox tool round trip: one call = a fresh child process in its own temp directory, JSON
 * arguments in, JSON result out; timed as the worker runs it (inside bubblewrap) and bare on the host,
 * so the difference is what the sandbox costs (aim: at most 30 ms).
 * Run: node --import tsx bench/sandbox-round-trip.ts [--samples 40]
 */
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

async function p50(tool: (typeof TOOLS)[number], isolation: SandboxIsolation, label: string): Promise<number> {
  const timings: number[] = [];
  for (let index = 0; index < samples + 5; index++) {
    const started = performance.now();
    const outcome = await runInLocalSandbox({ ...tool, args: { a: index, b: 1 }, env: {}, isolation, timeoutMs: 10_000, maxOutputBytes: 1 << 20, memoryLimitMb: 512 });
    if (outcome.status !== 'success' || outcome.funcReturn !== String(index + 1)) throw new Error(`unexpected result: ${JSON.stringify(outcome)}`);
    if (index >= 5) timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  console.log(`${tool.language.padEnd(10)} ${label.padEnd(10)} round trip  p50 ${percentile(timings, 50).toFixed(1)} ms  p99 ${percentile(timings, 99).toFixed(1)} ms  (n=${timings.length})`);
  return percentile(timings, 50);
}

for (const tool of TOOLS) {
  const host = await p50(tool, bare, 'host');
  const bubblewrap = await p50(tool, sandboxed, 'bubblewrap');
  console.log(`${tool.language.padEnd(10)} sandbox cost  p50 +${(bubblewrap - host).toFixed(1)} ms`);
}
