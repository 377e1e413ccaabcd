import type { McpTool } from './connection.js';

/**
 * Health of an MCP tool's input schema, in the reference server's terms: usable in providers'
 * strict mode, usable only without it, or not usable at all. `UNREACHABLE` is Engram's addition for
 * a tool whose server could not be reached at the last check.
 */
export type McpToolHealthStatus = 'STRICT_COMPLIANT' | 'NON_STRICT_ONLY' | 'INVALID' | 'UNREACHABLE';

export type McpToolHealth = { status: McpToolHealthStatus; reasons: string[] };

/** What model providers accept as a function name. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

type Findings = { invalid: string[]; nonStrict: string[] };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

function checkSchema(schema: unknown, path: string, findings: Findings): void {
  if (!isRecord(schema)) {
    findings.invalid.push(`${path}: is not a JSON schema object`);
    return;
  }
  const types = typesOf(schema);
  for (const type of types) {
    if (!JSON_TYPES.has(type)) findings.invalid.push(`${path}: unknown type '${type}'`);
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const variants = schema[keyword];
    if (variants === undefined) continue;
    if (!Array.isArray(variants)) findings.invalid.push(`${path}.${keyword}: is not a list`);
    else variants.forEach((variant, index) => checkSchema(variant, `${path}.${keyword}[${index}]`, findings));
  }
  if (types.includes('array')) {
    if (schema.items === undefined) findings.invalid.push(`${path}: array without 'items'`);
    else checkSchema(schema.items, `${path}.items`, findings);
  }
  if (types.includes('object') || schema.properties !== undefined) checkObject(schema, path, findings);
}

function checkObject(schema: Record<string, unknown>, path: string, findings: Findings): void {
  const properties = schema.properties ?? {};
  if (!isRecord(properties)) {
    findings.invalid.push(`${path}.properties: is not an object`);
    return;
  }
  const required = schema.required ?? [];
  if (!Array.isArray(required) || required.some((name) => typeof name !== 'string')) {
    findings.invalid.push(`${path}.required: is not a list of property names`);
  } else {
    const unknown = required.filter((name) => !Object.hasOwn(properties, name));
    if (unknown.length > 0) findings.invalid.push(`${path}.required: names unknown properties ${unknown.join(', ')}`);
    const optional = Object.keys(properties).filter((name) => !required.includes(name));
    if (optional.length > 0) findings.nonStrict.push(`${path}: optional properties ${optional.join(', ')} (strict mode requires every property)`);
  }
  if (schema.additionalProperties !== false) findings.nonStrict.push(`${path}: additionalProperties is not false`);
  for (const [name, property] of Object.entries(properties)) checkSchema(property, `${path}.properties.${name}`, findings);
}

/** Checks a tool as an MCP server described it: its name and its input schema. */
export function assessToolHealth(tool: Pick<McpTool, 'name' | 'inputSchema'>): McpToolHealth {
  const findings: Findings = { invalid: [], nonStrict: [] };
  if (!FUNCTION_NAME.test(tool.name)) findings.invalid.push(`name '${tool.name}' is not a valid function name (letters, digits, _ and -, at most 64)`);
  const schema: unknown = tool.inputSchema;
  if (!isRecord(schema) || schema.type !== 'object') findings.invalid.push("inputSchema: the top level must be of type 'object'");
  else checkObject(schema, 'inputSchema', findings);
  if (findings.invalid.length > 0) return { status: 'INVALID', reasons: findings.invalid };
  if (findings.nonStrict.length > 0) return { status: 'NON_STRICT_ONLY', reasons: findings.nonStrict };
  return { status: 'STRICT_COMPLIANT', reasons: [] };
}
