/**
 * Migrates everything a server speaking the Letta `/v1` API holds (self-hosted Letta, Letta Cloud, another Engram)
 * into an organization of this Engram, through its API, and follows the run until it ends:
 *   ENGRAM_API_KEY=<this organization's key> npm run import:letta -- --from https://letta.example --key <source key> [--dry-run] [--to http://127.0.0.1:8283]
 * The run is a Temporal workflow: stopping this command does not stop it (the console shows it under Settings → Import).
 */
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    key: { type: 'string' },
    to: { type: 'string', default: process.env.ENGRAM_URL ?? 'http://127.0.0.1:8283' },
    'dry-run': { type: 'boolean', default: false },
  },
});
const targetKey = process.env.ENGRAM_API_KEY;
if (!values.from || !values.key || !targetKey) {
  console.error('[engram] import:letta: --from <source URL>, --key <source API key> and ENGRAM_API_KEY (a key of the organization to import into) are required');
  process.exit(1);
}

type Run = {
  id: string;
  status: 'running' | 'completed' | 'failed';
  phase: string;
  workflowId: string;
  progress: { agentsTotal: number; agentsDone: number; agentsFailed: number; messages: number; passages: number; created: Record<string, number> };
  plan: { agents: Array<{ name: string; messages: number; passages: number }>; [kind: string]: unknown } | null;
  problems: Array<{ kind: string; name: string | null; reason: string }>;
  error: string | null;
};

async function api(method: string, path: string, body?: unknown): Promise<Run> {
  const response = await fetch(`${values.to!.replace(/\/+$/, '')}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${targetKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const answer = (await response.json()) as Run & { detail?: unknown };
  if (!response.ok) {
    console.error(`[engram] import:letta: ${response.status} ${JSON.stringify(answer.detail ?? answer)}`);
    process.exit(1);
  }
  return answer;
}

let run = await api('POST', '/imports/letta', { sourceUrl: values.from, apiKey: values.key, dryRun: values['dry-run'] });
console.log(`[engram] import ${run.id} started (workflow ${run.workflowId})`);
let last = '';
while (run.status === 'running') {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  run = await api('GET', `/imports/letta/${run.id}`);
  const line = `[engram] ${run.phase}: agents ${run.progress.agentsDone}/${run.progress.agentsTotal}, messages ${run.progress.messages}, passages ${run.progress.passages}`;
  if (line !== last) console.log((last = line));
}
if (run.plan && values['dry-run']) {
  console.log('[engram] would move:');
  for (const agent of run.plan.agents) console.log(`  agent ${agent.name}: ${agent.messages} messages, ${agent.passages} passages`);
  for (const [kind, count] of Object.entries(run.plan)) if (typeof count === 'number') console.log(`  ${kind}: ${count}`);
} else {
  console.log(`[engram] created: ${JSON.stringify(run.progress.created)}`);
}
for (const problem of run.problems) console.log(`[engram] not moved: ${problem.kind} ${problem.name ?? ''}: ${problem.reason}`);
if (run.status === 'failed') {
  console.error(`[engram] import failed: ${run.error}`);
  process.exit(1);
}
console.log(`[engram] import ${run.status}`);
