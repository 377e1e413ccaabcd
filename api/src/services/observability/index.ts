import type { Database } from '@engram/db';
import { createMetricsService } from './metrics-service.js';
import { createTraceService } from './trace-service.js';

/** The span store's reads and the metrics over it, for the `/v1` trace routes and the console's observability API. */
export function createObservabilityServices(deps: { db: Database }) {
  return { traces: createTraceService(deps), metrics: createMetricsService(deps) };
}
