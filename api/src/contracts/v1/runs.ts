import { z } from 'zod';
import { MessageType, StopReason } from './messages.js';

export const RUN_STATUSES = ['created', 'running', 'completed', 'failed', 'cancelled'] as const;

/** How the run's send asked its messages to be read back; kept on the run for its later listings and streams. */
const RunRequestConfig = z.object({
  use_assistant_message: z.boolean().optional(),
  assistant_message_tool_name: z.string().optional(),
  assistant_message_tool_kwarg: z.string().optional(),
  include_return_message_types: z.array(MessageType).nullish(),
});

const runFields = {
  id: z.string(),
  agent_id: z.string(),
  status: z.enum(RUN_STATUSES),
  stop_reason: StopReason.nullable(),
  background: z.boolean(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  request_config: RunRequestConfig.nullable(),
  callback_url: z.string().nullable(),
  callback_sent_at: z.string().nullable(),
  callback_status_code: z.number().int().nullable(),
  callback_error: z.string().nullable(),
  ttft_ns: z.number().nullable(),
  total_duration_ns: z.number().nullable(),
  /** Templates are a feature of the hosted service: always null here. */
  base_template_id: z.null(),
  /** Null for the agent's default conversation. */
  conversation_id: z.string().nullable(),
};

/** The wire `Run` of the public API: one send, its outcome and timings. */
export const RunResponse = z.object(runFields).meta({ id: 'Run' });

export type RunWire = z.infer<typeof RunResponse>;

/** A run or a message batch seen through the older `/v1/jobs` routes (the client's `Job`); a batch names no agent. */
export const JobResponse = z
  .object({ ...runFields, agent_id: z.string().nullable(), job_type: z.enum(['job', 'run', 'batch']), user_id: z.string().nullable(), updated_at: z.string() })
  .meta({ id: 'Job' });

export type JobWire = z.infer<typeof JobResponse>;

/** `GET /runs/{id}/usage`: the run's token counts. */
export const RunUsageResponse = z
  .object({
    completion_tokens: z.number().int(),
    prompt_tokens: z.number().int(),
    total_tokens: z.number().int(),
    step_count: z.number().int(),
    run_ids: z.array(z.string()),
  })
  .meta({ id: 'RunUsage' });

export type RunUsageWire = z.infer<typeof RunUsageResponse>;

/** `GET /runs/{id}/metrics`: when the run started, how long it took, its steps and the tools it used. */
export const RunMetricsResponse = z
  .object({
    id: z.string(),
    organization_id: z.string(),
    agent_id: z.string(),
    project_id: z.string().nullable(),
    run_start_ns: z.number().nullable(),
    run_ns: z.number().nullable(),
    num_steps: z.number().int(),
    tools_used: z.array(z.string()),
    template_id: z.null(),
    base_template_id: z.null(),
  })
  .meta({ id: 'RunMetrics' });

export type RunMetricsWire = z.infer<typeof RunMetricsResponse>;
