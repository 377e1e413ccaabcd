import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';

/*
 * Every recorded history (workflows/src/replay-histories, written by testing/src/replay/record-histories.ts)
 * replayed against the current workflow code. A change that would break runs already in flight (another
 * activity, a reordered command, a timer more or less) fails here with a nondeterminism error: version it with
 * patched() or a new workflow type (README "Changing a workflow safely"). Pure code: no database, no server.
 */

const HISTORIES = fileURLToPath(new URL('./replay-histories/', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('./index.ts', import.meta.url));

const recorded = readdirSync(HISTORIES)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({ name, workflowId: name.replace(/\.json$/, ''), history: JSON.parse(readFileSync(HISTORIES + name, 'utf8')) as unknown }));

let workflowBundle: WorkflowBundle;

beforeAll(async () => {
  // The replay worker logs every state change at INFO; a runtime another test file installed is kept.
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
  workflowBundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: new DefaultLogger('WARN') });
});

describe('recorded workflow histories replay against the current workflow code', () => {
  it('has histories of every workflow type that runs agents, groups and ingests files', () => {
    const types = new Set(recorded.map(({ name }) => name.replace(/^.*--|\.json$/g, '')));
    expect([...types].sort()).toEqual(['agentQueueWorkflow', 'agentRunWorkflow', 'agentRunWorkflowV2', 'fileIngestionWorkflow', 'groupTurnWorkflow']);
  });

  it('replays each of them without a nondeterminism error', async () => {
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle, replayName: 'recorded-histories' }, recorded)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
