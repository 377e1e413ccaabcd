import { proxyActivities } from '@temporalio/workflow';
import type { HealthActivities } from '@engram/activities';

// A probe must fail fast rather than queue behind retries.
const { checkDatabase } = proxyActivities<HealthActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' },
});

export type HealthCheckResult = { database: 'ok'; serverVersion: string };

/** End-to-end probe: API → Temporal → worker → activity → PostgreSQL. */
export async function healthCheckWorkflow(): Promise<HealthCheckResult> {
  const { serverVersion } = await checkDatabase();
  return { database: 'ok', serverVersion };
}
