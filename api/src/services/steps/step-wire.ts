import type { ModelRequest } from '@engram/core';
import type { Step, StepTrace } from '@engram/db';
import type { ProviderTraceWire, StepMetricsWire } from '../../contracts/v1/steps.js';
import { providerPayload } from './provider-payload.js';

const nanoseconds = (value: string | number | null) => (value === null ? null : Number(value));

/** The wire `StepMetrics`: a step's timings. Templates are a cloud feature, so their ids are always null. */
export function stepMetricsToWire(step: Step): StepMetricsWire {
  return {
    id: step.id,
    provider_id: step.providerId,
    run_id: step.runId,
    agent_id: step.agentId,
    step_start_ns: nanoseconds(step.stepStartNs),
    llm_request_start_ns: nanoseconds(step.llmRequestStartNs),
    llm_request_ns: nanoseconds(step.llmRequestNs),
    tool_execution_ns: nanoseconds(step.toolExecutionNs),
    step_ns: nanoseconds(step.stepNs),
    template_id: null,
    base_template_id: null,
    project_id: step.projectId,
  };
}

/**
 * The wire `ProviderTrace` of a step. The worker records the provider-neutral model request; `request_json` is
 * the provider body rendered from it by the same function the worker sent it with, so it is what the provider
 * received. The response is the model's answer as the worker read it.
 */
export function stepTraceToWire(trace: StepTrace, agentId: string | null): ProviderTraceWire {
  const request = trace.requestJson as unknown as ModelRequest | null;
  return {
    step_id: trace.stepId,
    run_id: trace.runId,
    agent_id: agentId,
    call_type: 'agent_step',
    request_json: request ? providerPayload(request) : {},
    response_json: trace.responseJson ?? {},
    llm_config: request?.settings ?? null,
    created_at: trace.createdAt.toISOString(),
  };
}
