/** The schedule's id: one per cluster, so an API start finds the schedule an earlier start made. */
export const TRACE_RETENTION_WORKFLOW_ID = 'engram-trace-retention';
