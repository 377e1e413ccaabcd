import type { Run, Step } from '@engram/db';
import type { JobWire, RunMetricsWire, RunUsageWire, RunWire } from '../../contracts/v1/runs.js';
import type { StepWire } from '../../contracts/v1/steps.js';
import type { RunMetrics } from './run-service.js';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);
const num = (value: string | number | null | undefined) => (value === null || value === undefined ? null : Number(value));

/** The wire `Run` of the public API. */
export function runToWire(run: Run): RunWire {
  return {
    id: run.id,
    agent_id: run.agentId,
    status: run.status,
    stop_reason: run.stopReason as RunWire['stop_reason'],
    background: run.background,
    created_at: run.createdAt.toISOString(),
    completed_at: iso(run.completedAt),
    metadata: run.metadata,
    request_config: run.requestConfig as RunWire['request_config'],
    callback_url: run.callbackUrl,
    callback_sent_at: iso(run.callbackSentAt),
    callback_status_code: run.callbackStatusCode,
    callback_error: run.callbackError,
    ttft_ns: num(run.ttftNs),
    total_duration_ns: num(run.totalDurationNs),
    base_template_id: null,
    conversation_id: run.conversationId ?? null,
  };
}

/** A run seen through the older `/v1/jobs` routes. */
export function runToJob(run: Run): JobWire {
  return {
    ...runToWire(run),
    job_type: run.jobType as JobWire['job_type'],
    user_id: run.userId,
    updated_at: run.updatedAt.toISOString(),
  };
}

/** `GET /runs/{id}/usage`: the run's token counts so far. */
export function runUsageToWire(run: Run): RunUsageWire {
  return {
    completion_tokens: run.usage.completion_tokens ?? 0,
    prompt_tokens: run.usage.prompt_tokens ?? 0,
    total_tokens: run.usage.total_tokens ?? 0,
    step_count: run.usage.step_count ?? 0,
    run_ids: [run.id],
  };
}

/** `GET /runs/{id}/metrics`. Templates are a feature of the hosted service, so their ids are always null. */
export function runMetricsToWire({ run, stepCount, toolsUsed }: RunMetrics): RunMetricsWire {
  return {
    id: run.id,
    organization_id: run.organizationId,
    agent_id: run.agentId,
    project_id: run.projectId,
    run_start_ns: run.startedAt ? run.startedAt.getTime() * 1_000_000 : null,
    run_ns: num(run.totalDurationNs),
    num_steps: stepCount,
    tools_used: toolsUsed,
    template_id: null,
    base_template_id: null,
  };
}

export function stepToWire(step: Step): StepWire {
  return {
    id: step.id,
    origin: step.origin,
    organization_id: step.organizationId,
    provider_id: step.providerId,
    run_id: step.runId,
    agent_id: step.agentId,
    provider_name: step.providerName,
    provider_category: step.providerCategory,
    model: step.model,
    model_handle: step.modelHandle,
    model_endpoint: step.modelEndpoint,
    context_window_limit: step.contextWindowLimit,
    completion_tokens: step.completionTokens,
    prompt_tokens: step.promptTokens,
    total_tokens: step.totalTokens,
    stop_reason: step.stopReason as StepWire['stop_reason'],
    tags: step.tags,
    tid: step.tid,
    trace_id: step.traceId,
    feedback: step.feedback,
    project_id: step.projectId,
    error_type: step.errorType,
    error_data: step.errorData,
    status: step.status as StepWire['status'],
    messages: [],
    created_at: step.createdAt.toISOString(),
  };
}
