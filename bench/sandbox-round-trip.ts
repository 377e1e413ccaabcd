/**
 * Local-sandbox tool round trip: one call = a fresh child process in its own temp directory, JSON
 * arguments in, JSON result out. Run: node --import tsx bench/sandbox-round-trip.ts [--samples 40]
 */
import { runInLocalSandbox, type LocalSandboxInput } from '@engram/integrations/sandbox';

const samples = Number(process.argv[process.argv.indexOf('--samples') + 1] || 40);

const TOOLS: Array<Pick<LocalSandboxInput, 'language' | 'sourceCode' | 'functionName'>> = [
  { language: 'python', functionName: 'add', sourceCode: 'def add(a: int, b: int) -> int:\n    return a + b\n' },
  { language: 'typescript', functionName: 'add', sourceCode: 'export function add(a: number, b: number): number {\n  return a + b;\n}\n' },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

for (const tool of TOOLS) {
  const timings: number[] = [];
  for (let index = 0; index < samples + 5; index++) {
    const started = performance.now();
    const outcome = await runInLocalSandbox({ ...tool, args: { a: index, b: 1 }, env: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 20, memoryLimitMb: 512 });
    if (outcome.status !== 'success' || outcome.funcReturn !== String(index + 1)) throw new Error(`unexpected result: ${JSON.stringify(outcome)}`);
    if (index >= 5) timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  console.log(`${tool.language.padEnd(10)} round trip  p50 ${percentile(timings, 50).toFixed(1)} ms  p99 ${percentile(timings, 99).toFixed(1)} ms  (n=${timings.length})`);
}
