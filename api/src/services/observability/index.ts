import type { Database } from '@engram/db';
import { createMetricsService } from './metrics-service.js';
import { createTraceService } from './trace-service.js';
import { createUsageService } from './usage-service.js';

/** The span store's reads, the metrics over it and the usage, costs and limits per model, for the `/v1` trace routes and the console's observability API. */
export function createObservabilityServices(deps: { db: Database }) {
  return { traces: createTraceService(deps), metrics: createMetricsService(deps), usage: createUsageService(deps) };
}
