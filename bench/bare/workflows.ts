import { proxyActivities } from '@temporalio/workflow';
import type { BareActivities } from './activities.js';

const { noop } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });

/** The baseline for one agent step: a workflow that calls one regular (non-local) activity. */
export async function bareWorkflow(): Promise<void> {
  await noop();
}
