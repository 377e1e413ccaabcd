import type { ToolJsonSchema } from '@engram/db';
import { BadRequestError } from '../../errors.js';
import { generatePythonSchema } from './python-schema.js';

/** Tool names are at most this long, as the public API allows. */
export const MAX_TOOL_NAME_LENGTH = 48;
/** Model APIs accept function names of this form only (OpenAI: `^[a-zA-Z0-9_-]+$`). */
const TOOL_NAME = /^[A-Za-z0-9_-]+$/;

export type SchemaSource = {
  sourceCode: string;
  sourceType: string;
  jsonSchema?: Record<string, unknown> | null | undefined;
  argsJsonSchema?: Record<string, unknown> | null | undefined;
};

function checkName(name: string): void {
  if (name.length > MAX_TOOL_NAME_LENGTH) {
    throw new BadRequestError(`Tool name '${name}' is ${name.length} characters long; the limit is ${MAX_TOOL_NAME_LENGTH}`);
  }
  if (!TOOL_NAME.test(name)) throw new BadRequestError(`Tool name '${name}' may contain only letters, digits, '_' and '-'`);
}

function givenSchema(jsonSchema: Record<string, unknown>): ToolJsonSchema {
  const { name, parameters } = jsonSchema;
  if (typeof name !== 'string' || name === '') throw new BadRequestError('json_schema.name is required: it is the name of the tool');
  if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))) {
    throw new BadRequestError('json_schema.parameters must be an object schema');
  }
  return {
    ...jsonSchema,
    name,
    parameters: (parameters as ToolJsonSchema['parameters'] | undefined) ?? { type: 'object', properties: {}, required: [] },
  };
}

/**
 * A tool's JSON schema: `json_schema` as given; else, for Python, derived from the source, its parameters
 * replaced by `args_json_schema` when one is given. TypeScript tools must bring their own. The tool's name
 * is the schema's name, so the name rules are checked here.
 */
export async function resolveToolSchema(source: SchemaSource): Promise<ToolJsonSchema> {
  let schema: ToolJsonSchema;
  if (source.jsonSchema) {
    schema = givenSchema(source.jsonSchema);
  } else if (source.sourceType === 'typescript') {
    throw new BadRequestError('TypeScript tools must supply json_schema: their schema is not derived from the source');
  } else if (source.sourceType === 'python') {
    schema = await generatePythonSchema(source.sourceCode);
    if (source.argsJsonSchema) {
      const { properties, required } = source.argsJsonSchema as { properties?: Record<string, unknown>; required?: string[] };
      schema = { ...schema, parameters: { type: 'object', properties: properties ?? {}, required: required ?? [] } };
    }
  } else {
    throw new BadRequestError(`source_type must be python or typescript, not '${source.sourceType}'`);
  }
  checkName(schema.name);
  return schema;
}

/** The function `POST /tools/run` calls when no name is given: the first one the source defines. */
export function firstFunctionName(sourceCode: string, sourceType: string): string {
  const pattern =
    sourceType === 'typescript'
      ? /(?:^|\n)[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?(?:function[ \t]*\*?[ \t]*([A-Za-z_$][\w$]*)|(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*(?:async[ \t]*)?(?:function\b|\([^)]*\)[^=]*=>|[A-Za-z_$][\w$]*[ \t]*=>))/
      : /^(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)/m;
  const match = pattern.exec(sourceCode);
  const name = match?.[1] ?? match?.[2];
  if (!name) throw new BadRequestError('source_code defines no function to run; pass its name in `name`');
  return name;
}
