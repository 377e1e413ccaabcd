import { z } from 'zod';
import { TOOL_TYPES } from '../../services/tools/tool-service.js';

const JsonObject = z.record(z.string(), z.unknown());

export const ToolType = z.enum(TOOL_TYPES);

const Requirement = z.object({ name: z.string(), version: z.string().nullish() });

/** The wire `Tool` (note `metadata_`, with the underscore). `json_schema` is the function's own JSON Schema. */
export const ToolResponse = z
  .object({
    id: z.string(),
    tool_type: ToolType,
    name: z.string(),
    description: z.string().nullable(),
    source_type: z.string(),
    source_code: z.string().nullable(),
    json_schema: JsonObject,
    args_json_schema: JsonObject.nullable(),
    tags: z.array(z.string()),
    return_char_limit: z.number().int(),
    pip_requirements: z.array(Requirement).nullable(),
    npm_requirements: z.array(Requirement).nullable(),
    default_requires_approval: z.boolean().nullable(),
    enable_parallel_execution: z.boolean(),
    metadata_: JsonObject,
    project_id: z.string().nullable(),
    created_by_id: z.string().nullable(),
    last_updated_by_id: z.string().nullable(),
  })
  .meta({ id: 'Tool' });

export type ToolWire = z.infer<typeof ToolResponse>;

const ToolReturn = z.object({
  type: z.literal('tool'),
  tool_return: z.string(),
  status: z.enum(['success', 'error']),
  tool_call_id: z.string(),
  stdout: z.array(z.string()).nullish(),
  stderr: z.array(z.string()).nullish(),
});

/** `POST /tools/run`: a `tool_return_message` of a run outside any agent, with `func_return` beside it. */
export const ToolRunResponse = z.object({
  id: z.string(),
  date: z.string(),
  message_type: z.literal('tool_return_message'),
  name: z.string().nullish(),
  otid: z.string().nullish(),
  sender_id: z.string().nullish(),
  step_id: z.string().nullish(),
  run_id: z.string().nullish(),
  is_err: z.boolean().nullish(),
  tool_return: z.string(),
  func_return: z.string(),
  status: z.enum(['success', 'error']),
  tool_call_id: z.string(),
  stdout: z.array(z.string()).nullish(),
  stderr: z.array(z.string()).nullish(),
  tool_returns: z.array(ToolReturn),
});

/** `ToolExecutionResult`: one tool run for an agent or from an MCP server. */
export const ToolExecutionResult = z
  .object({
    status: z.enum(['success', 'error']),
    func_return: z.unknown(),
    stdout: z.array(z.string()).nullable(),
    stderr: z.array(z.string()).nullable(),
    agent_state: z.null(),
    sandbox_config_fingerprint: z.string().nullable(),
  })
  .meta({ id: 'ToolExecutionResult' });

export type ToolExecutionResultWire = z.infer<typeof ToolExecutionResult>;

/** A function's tool JSON schema, as `POST /tools/generate-schema` derives it. */
export const ToolJsonSchemaResponse = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  parameters: z.looseObject({ type: z.literal('object'), properties: JsonObject, required: z.array(z.string()).optional() }),
});

/** `GenerateToolOutput`: the tool a model wrote (unsaved), sample arguments and the model's own words. */
/** The client's `ToolSearchResult`: full-text rank only (tools are not embedded here). */
export const ToolSearchResultResponse = z.object({
  tool: ToolResponse,
  combined_score: z.number(),
  fts_rank: z.number().int().nullable(),
  vector_rank: z.number().int().nullable(),
  embedded_text: z.string().nullable(),
});

export const GeneratedToolResponse = z.object({ tool: ToolResponse, sample_args: JsonObject, response: z.string() });
