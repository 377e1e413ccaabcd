import { proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AutoTopUpActivities } from '@engram/activities';
import type { AutoTopUpWorkflowInput } from './ids.js';
import { balanceLowSignal } from './messages.js';

// A charge is sent again only with its own idempotency key, so Stripe performs it once however often it is retried;
// transient failures (Stripe unreachable, a dead worker) are retried with backoff, and the heartbeat notices a dead
// worker in seconds. A declined card is an answer, not a failure: it is never retried.
const billing = proxyActivities<AutoTopUpActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/** Telling the admins may be retried: a second email is better than none. */
const notices = proxyActivities<AutoTopUpActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 10 },
});

/** Top-ups of one run, at most: a refill far below what steps use cannot charge the card without end. */
const MAX_TOP_UPS_PER_RUN = 20;

/**
 * Auto top-up of one organization, started or signalled (signal-with-start) when a step takes the balance below the
 * threshold. It charges the default card for the refill amount while the balance stays below the threshold and the
 * month's `maxMonthlySpend` allows, then ends; a declined card turns auto top-up off and the admins are told.
 */
export async function autoTopUpWorkflow(input: AutoTopUpWorkflowInput): Promise<{ topUps: number }> {
  let requested = false;
  setHandler(balanceLowSignal, () => {
    requested = true;
  });
  let topUps = 0;
  // Signal-with-start delivers its signal before the first workflow task, so `requested` is set on the first pass.
  while (requested && topUps < MAX_TOP_UPS_PER_RUN) {
    requested = false;
    const outcome = await billing.autoTopUp({
      organizationId: input.organizationId,
      idempotencyKey: `auto_top_up:${workflowInfo().runId}:${topUps + 1}`,
    });
    if (outcome.kind === 'charged') {
      topUps += 1;
      if (outcome.belowThreshold) requested = true;
    } else if (outcome.kind === 'declined') {
      await notices.notifyAutoTopUpDeclined({ organizationId: input.organizationId, message: outcome.message });
      break;
    }
  }
  return { topUps };
}
