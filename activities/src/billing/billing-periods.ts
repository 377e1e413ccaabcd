import { endCancelledPlans, expireLapsedCredits, grantDueCredits, type Database } from '@engram/db';

/** The billing period workflow's activities: bounded batches, each idempotent, so a retried one redoes nothing. */
export function createBillingPeriodActivities(deps: { db: Database }) {
  return {
    async endCancelledPlans(): Promise<number> {
      return endCancelledPlans(deps.db, { at: new Date() });
    },
    async grantDueCredits(input: { batchSize: number }): Promise<number> {
      return grantDueCredits(deps.db, { at: new Date(), limit: input.batchSize });
    },
    async expireLapsedCredits(input: { batchSize: number }): Promise<number> {
      return expireLapsedCredits(deps.db, { at: new Date(), limit: input.batchSize });
    },
  };
}

export type BillingPeriodActivities = ReturnType<typeof createBillingPeriodActivities>;
