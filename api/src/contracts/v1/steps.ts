import { z } from 'zod';
import { StopReason } from './messages.js';

export const STEP_STATUSES = ['pending', 'success', 'failed', 'cancelled'] as const;

export const StepFeedback = z.enum(['positive', 'negative']);

/** The wire `Step`: one model call of a run, with its model, tokens, outcome and feedback. */
export const StepResponse = z
  .object({
    id: z.string(),
    origin: z.string().nullable(),
    organization_id: z.string(),
    provider_id: z.string().nullable(),
    run_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    provider_name: z.string().nullable(),
    provider_category: z.string().nullable(),
    model: z.string().nullable(),
    model_handle: z.string().nullable(),
    model_endpoint: z.string().nullable(),
    context_window_limit: z.number().int().nullable(),
    completion_tokens: z.number().int(),
    prompt_tokens: z.number().int(),
    total_tokens: z.number().int(),
    stop_reason: StopReason.nullable(),
    tags: z.array(z.string()),
    tid: z.string().nullable(),
    trace_id: z.string().nullable(),
    feedback: StepFeedback.nullable(),
    project_id: z.string().nullable(),
    error_type: z.string().nullable(),
    error_data: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(STEP_STATUSES).nullable(),
    /** Always empty: a step's messages are listed by `GET /steps/{id}/messages`. */
    messages: z.array(z.never()),
    created_at: z.string(),
  })
  .meta({ id: 'Step' });

export type StepWire = z.infer<typeof StepResponse>;

/** The wire `StepMetrics`: a step's timings in nanoseconds. */
export const StepMetricsResponse = z
  .object({
    id: z.string(),
    provider_id: z.string().nullable(),
    run_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    step_start_ns: z.number().nullable(),
    llm_request_start_ns: z.number().nullable(),
    llm_request_ns: z.number().nullable(),
    tool_execution_ns: z.number().nullable(),
    step_ns: z.number().nullable(),
    template_id: z.null(),
    base_template_id: z.null(),
    project_id: z.string().nullable(),
  })
  .meta({ id: 'StepMetrics' });

export type StepMetricsWire = z.infer<typeof StepMetricsResponse>;

/** The wire `ProviderTrace` of a step: the body the provider received and what it answered. */
export const ProviderTraceResponse = z
  .object({
    step_id: z.string(),
    run_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    call_type: z.string(),
    request_json: z.record(z.string(), z.unknown()),
    response_json: z.record(z.string(), z.unknown()),
    llm_config: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'ProviderTrace' });

export type ProviderTraceWire = z.infer<typeof ProviderTraceResponse>;
