import { proxyActivities } from '@temporalio/workflow';
import type { BillingPeriodActivities } from '@engram/activities';

/** Organizations per activity call: short transactions, and a retried batch redoes little. */
const BATCH_SIZE = 200;
/** One run's bound; what remains is left to the next scheduled run. */
const MAX_BATCHES = 500;

const billing = proxyActivities<BillingPeriodActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/**
 * What each billing period's start brings, for every organization due, whenever it runs (a Temporal schedule runs it
 * hourly): plans cancelled at the period end go back to free, then every organization without this period's grant
 * gets it (at its tier, so after the plans ended), then granted credits past their expiry are taken back. Every step
 * is keyed in the ledger, so a repeated or overlapping run books nothing twice.
 */
export async function billingPeriodWorkflow(): Promise<{ plansEnded: number; granted: number; expired: number }> {
  const plansEnded = await billing.endCancelledPlans();
  let granted = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const done = await billing.grantDueCredits({ batchSize: BATCH_SIZE });
    granted += done;
    if (done < BATCH_SIZE) break;
  }
  let expired = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const done = await billing.expireLapsedCredits({ batchSize: BATCH_SIZE });
    expired += done;
    if (done < BATCH_SIZE) break;
  }
  return { plansEnded, granted, expired };
}
