import type { BareWorkflowRunner } from '../bare/runner.js';

export type BareThroughputMeasurement = { workflows: number; wallMs: number; workflowsPerSecond: number };

/**
 * The engine's own ceiling for the throughput phase: as many lanes as that phase has agents, each running the bare
 * workflow (one no-op activity) one after the other. What Engram reaches is read against this, on the same server.
 */
export async function measureBareThroughput(bare: BareWorkflowRunner, plan: { lanes: number; workflowsPerLane: number }): Promise<BareThroughputMeasurement> {
  const lane = async () => {
    for (let index = 0; index < plan.workflowsPerLane; index++) await bare.runOnce();
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: plan.lanes }, lane));
  const wallMs = performance.now() - started;
  const workflows = plan.lanes * plan.workflowsPerLane;
  return { workflows, wallMs, workflowsPerSecond: workflows / (wallMs / 1000) };
}
