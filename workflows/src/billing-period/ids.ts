/** The schedule's id: one per cluster, so an API start finds the schedule an earlier start made. */
export const BILLING_PERIOD_WORKFLOW_ID = 'engram-billing-periods';
