import type { ModelRequest, ToolDefinition } from '@engram/core';
import { Tool, newId, type ToolJsonSchema } from '@engram/db';
import { createModelClient, type BaseProviderConfig, resolveProviderForModel } from '@engram/integrations/llm';
import { BadRequestError, UpstreamError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { withProviderCalls } from '../providers/model-call-failure.js';
import { clientProviderOf } from '../providers/provider-models.js';
import type { ModelService } from '../models/model-service.js';
import type { ProviderService } from '../providers/provider-service.js';
import type { ProviderConnection } from '../providers/types.js';
import { generatePythonSchema } from './python-schema.js';
import { DEFAULT_RETURN_CHAR_LIMIT } from './return-char-limit.js';

/** The model asked when the request names none, as the reference server falls back to a fixed model. */
export const DEFAULT_TOOL_GENERATION_HANDLE = 'openai/gpt-4o-mini';
const GENERATION_TIMEOUT_MS = 120_000;

export type GenerateToolInput = {
  tool_name: string;
  prompt: string;
  handle?: string | null | undefined;
  starter_code?: string | null | undefined;
  validation_errors?: string[] | null | undefined;
};

export type GeneratedTool = { tool: Tool; sampleArgs: Record<string, unknown>; response: string };

const SYSTEM_PROMPT = `You write tools for AI agents. A tool is exactly one Python function.
- Name the function exactly as asked.
- Give every parameter a type annotation (str, int, float, bool, list[...], dict, Literal[...] or Optional[...]).
- Write a Google-style docstring: a one-line summary, optionally more detail, then an "Args:" section describing every parameter, then "Returns:".
- Import what you need inside the function; prefer the standard library.
- Return a string or a JSON-serializable value. Raise an exception with a clear message on bad input.
Answer by calling generate_tool once.`;

const GENERATE_TOOL: ToolDefinition = {
  name: 'generate_tool',
  description: 'Submit the generated tool.',
  parameters: {
    type: 'object',
    properties: {
      raw_source_code: { type: 'string', description: 'The complete Python source of the tool: imports and the one function.' },
      sample_args_json: { type: 'string', description: 'A JSON object of example arguments for one call of the function.' },
      pip_requirements_json: { type: 'string', description: 'A JSON array of the pip packages the source needs beyond the standard library; [] for none.' },
    },
    required: ['raw_source_code', 'sample_args_json', 'pip_requirements_json'],
  },
};

function userPrompt(input: GenerateToolInput): string {
  const parts = [`Write a tool named ${input.tool_name}.`, `What it should do: ${input.prompt}`];
  if (input.starter_code) parts.push(`Start from this code:\n\`\`\`python\n${input.starter_code}\n\`\`\``);
  if (input.validation_errors?.length) parts.push(`An earlier attempt was rejected for these reasons; fix them:\n- ${input.validation_errors.join('\n- ')}`);
  return parts.join('\n\n');
}

function parseJson<T>(text: unknown, accept: (value: unknown) => value is T, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  try {
    const value: unknown = JSON.parse(text);
    return accept(value) ? value : fallback;
  } catch {
    return fallback;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

function asBaseProvider(connection: ProviderConnection): BaseProviderConfig[] {
  try {
    return [clientProviderOf(connection) as BaseProviderConfig];
  } catch {
    return [];
  }
}

export type ToolGeneratorDeps = {
  models: Pick<ModelService, 'resolveLlmConfig'>;
  providers: Pick<ProviderService, 'connections'>;
};

/** `POST /tools/generate-tool`: asks a model for a tool's source and returns the tool, unsaved. */
export function createToolGenerator(deps: ToolGeneratorDeps) {
  return {
    async generate(ctx: RequestContext, input: GenerateToolInput): Promise<GeneratedTool> {
      const settings = await deps.models.resolveLlmConfig(ctx, input.handle ?? DEFAULT_TOOL_GENERATION_HANDLE);
      const request: ModelRequest = {
        settings,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: userPrompt(input) },
        ],
        tools: [GENERATE_TOOL],
        toolChoice: { name: GENERATE_TOOL.name },
        parallelToolCalls: false,
        stream: false,
      };
      const connections = (await deps.providers.connections(ctx)).flatMap(asBaseProvider);
      const turn = await withProviderCalls(() =>
        createModelClient(resolveProviderForModel(settings, connections)).complete(request, { signal: AbortSignal.timeout(GENERATION_TIMEOUT_MS) }),
      );

      const call = turn.toolCalls.find((candidate) => candidate.name === GENERATE_TOOL.name);
      const args = call ? parseJson(call.arguments, isObject, {}) : {};
      const sourceCode = args.raw_source_code;
      if (typeof sourceCode !== 'string' || sourceCode.trim() === '') {
        throw new UpstreamError(`The model (${settings.handle}) answered without tool source code`);
      }
      let jsonSchema: ToolJsonSchema;
      try {
        jsonSchema = await generatePythonSchema(sourceCode, input.tool_name);
      } catch (error) {
        if (!(error instanceof BadRequestError)) throw error;
        throw new BadRequestError(`The generated code is not a valid tool: ${error.message}. Send it back as starter_code with this error in validation_errors to try again.`);
      }
      const pipRequirements = parseJson(args.pip_requirements_json, isStringList, []).map((name) => ({ name }));
      const tool = Tool.fromJson({
        id: newId('tool'),
        organizationId: ctx.organizationId,
        projectId: null,
        name: jsonSchema.name,
        toolType: 'custom',
        description: jsonSchema.description ?? null,
        sourceType: 'python',
        sourceCode,
        jsonSchema,
        argsJsonSchema: null,
        tags: [],
        returnCharLimit: DEFAULT_RETURN_CHAR_LIMIT,
        pipRequirements: pipRequirements.length > 0 ? pipRequirements : null,
        npmRequirements: null,
        defaultRequiresApproval: null,
        enableParallelExecution: false,
        metadata: {},
        createdById: ctx.userId,
        lastUpdatedById: ctx.userId,
      });
      return { tool, sampleArgs: parseJson(args.sample_args_json, isObject, {}), response: turn.text ?? '' };
    },
  };
}

export type ToolGenerator = ReturnType<typeof createToolGenerator>;
