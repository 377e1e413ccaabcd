import { z } from 'zod';
import { embeddingConfigFields, llmConfigFields, ResponseFormat } from './models.js';

const toolName = z.string().min(1);
const promptTemplate = z.string().nullish();
const toolArgs = z.record(z.string(), z.unknown()).nullish();

/** The nine tool rule kinds, told apart by `type`. */
export const ToolRuleSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('run_first'), tool_name: toolName, args: toolArgs, prompt_template: promptTemplate }),
  z.strictObject({
    type: z.literal('constrain_child_tools'),
    tool_name: toolName,
    children: z.array(toolName),
    child_arg_nodes: z.array(z.strictObject({ name: toolName, args: toolArgs })).nullish(),
    prompt_template: promptTemplate,
  }),
  z.strictObject({
    type: z.literal('conditional'),
    tool_name: toolName,
    child_output_mapping: z.record(z.string(), toolName),
    default_child: toolName.nullish(),
    require_output_mapping: z.boolean().optional(),
    prompt_template: promptTemplate,
  }),
  z.strictObject({ type: z.literal('parent_last_tool'), tool_name: toolName, children: z.array(toolName), prompt_template: promptTemplate }),
  z.strictObject({
    type: z.literal('max_count_per_step'),
    tool_name: toolName,
    max_count_limit: z.number().int().min(1),
    prompt_template: promptTemplate,
  }),
  z.strictObject({ type: z.literal('exit_loop'), tool_name: toolName, prompt_template: promptTemplate }),
  z.strictObject({ type: z.literal('continue_loop'), tool_name: toolName, prompt_template: promptTemplate }),
  z.strictObject({ type: z.literal('required_before_exit'), tool_name: toolName, prompt_template: promptTemplate }),
  z.strictObject({ type: z.literal('requires_approval'), tool_name: toolName, prompt_template: promptTemplate }),
]);

/** The deprecated llm_config input: the three required fields are checked, the known settings typed, the rest kept as sent. */
export const LlmConfigSchema = z.looseObject({
  ...llmConfigFields,
  model: z.string().min(1),
  model_endpoint_type: z.string().min(1),
  context_window: z.number().int().positive(),
  max_tokens: z.number().int().positive().nullish(),
});

export const EmbeddingConfigSchema = z.looseObject({
  ...embeddingConfigFields,
  embedding_endpoint_type: z.string().min(1),
  embedding_model: z.string().min(1),
  embedding_dim: z.number().int().positive(),
});

export const ModelSettingsSchema = z.looseObject({
  provider_type: z.string().optional(),
  temperature: z.number().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  parallel_tool_calls: z.boolean().optional(),
});

/** An agent's response format is stored as given and shown as stored, so both directions share one shape. */
export const ResponseFormatSchema = ResponseFormat;

export const AGENT_TYPES = ['letta_v1_agent', 'memgpt_v2_agent', 'memgpt_agent', 'react_agent', 'workflow_agent', 'sleeptime_agent'] as const;

export const Metadata = z.record(z.string(), z.unknown());

export const blockTemplateFields = {
  is_template: z.boolean().optional(),
  template_name: z.string().nullish(),
  template_id: z.string().nullish(),
  base_template_id: z.string().nullish(),
  deployment_id: z.string().nullish(),
  entity_id: z.string().nullish(),
};

/** A new memory block, as `POST /blocks` and an agent's `memory_blocks` take it. */
export const CreateBlockFields = {
  label: z.string().min(1),
  // The reference server coerces a null value to an empty block.
  value: z
    .string()
    .nullable()
    .transform((value) => value ?? ''),
  limit: z.number().int().positive().optional(),
  description: z.string().nullish(),
  read_only: z.boolean().optional(),
  hidden: z.boolean().nullish(),
  metadata: Metadata.nullish(),
  tags: z.array(z.string()).nullish(),
  preserve_on_migration: z.boolean().nullish(),
  project_id: z.string().nullish(),
  ...blockTemplateFields,
};
