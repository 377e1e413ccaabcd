/*
 * The run form of a tool, from its JSON schema: which input each parameter gets, and the
 * arguments the inputs make (or why they make none). Pure, so it is tested without a browser.
 */

/** A parameter as tool schemas describe it (Python tools get theirs from the function's annotations). */
export type ParameterSchema = { type?: string | string[]; description?: string; enum?: unknown[]; default?: unknown; anyOf?: unknown[] };

export type ToolSchema = { parameters?: { properties?: Record<string, ParameterSchema>; required?: string[] } };

/** `json` is the fallback for arrays, objects and unions: the user writes the value as JSON. */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'json';

export type ToolField = {
  name: string;
  kind: FieldKind;
  required: boolean;
  description: string | null;
  /** For `enum`: each allowed value, JSON-encoded (so `1` and `"1"` stay apart), with its label. */
  options: Array<{ value: string; label: string }>;
  /** For `json`: the JSON type the value must have, when the schema says. */
  jsonType: 'array' | 'object' | null;
};

/** What the inputs hold: text for text, JSON and number inputs, a boolean for switches; a missing key is a field left unset. */
export type FieldValues = Record<string, string | number | boolean>;

function primaryType(schema: ParameterSchema): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type.filter((type) => type !== 'null') : [schema.type];
  return types.length === 1 ? types[0] : undefined;
}

function kindOf(schema: ParameterSchema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return 'enum';
  const type = primaryType(schema);
  return type === 'string' || type === 'integer' || type === 'number' || type === 'boolean' ? type : 'json';
}

/**
 * The fields, required ones first in the order `required` lists them. Stored schemas lose the
 * order of `properties` (PostgreSQL's jsonb sorts keys), while a list keeps it: for Python tools,
 * the required parameters in the function's order.
 */
export function toolFields(schema: ToolSchema): ToolField[] {
  const properties = schema.parameters?.properties ?? {};
  const requiredOrder = (schema.parameters?.required ?? []).filter((name) => name in properties);
  const required = new Set(requiredOrder);
  const names = [...requiredOrder, ...Object.keys(properties).filter((name) => !required.has(name))];
  return names.map((name) => {
    const parameter = properties[name] ?? {};
    const kind = kindOf(parameter);
    const type = primaryType(parameter);
    return {
      name,
      kind,
      required: required.has(name),
      description: parameter.description?.trim() || null,
      options: kind === 'enum' ? (parameter.enum ?? []).map((value) => ({ value: JSON.stringify(value), label: String(value) })) : [],
      jsonType: kind === 'json' && (type === 'array' || type === 'object') ? type : null,
    };
  });
}

/** The inputs' starting values: the schema's defaults, in the form each input holds them. */
export function initialValues(schema: ToolSchema, fields: ToolField[]): FieldValues {
  const values: FieldValues = {};
  for (const field of fields) {
    const fallback = schema.parameters?.properties?.[field.name]?.default;
    if (fallback === undefined || fallback === null) continue;
    if (field.kind === 'boolean' && typeof fallback === 'boolean') values[field.name] = fallback;
    else if ((field.kind === 'integer' || field.kind === 'number') && typeof fallback === 'number') values[field.name] = fallback;
    else if (field.kind === 'string' && typeof fallback === 'string') values[field.name] = fallback;
    else if (field.kind === 'enum' || field.kind === 'json') values[field.name] = JSON.stringify(fallback, null, field.kind === 'json' ? 2 : undefined);
  }
  return values;
}

/**
 * The arguments the inputs make, or a message per field that cannot be sent. Optional fields left
 * empty are left out, so the tool's own defaults apply.
 */
export function toolArguments(fields: ToolField[], values: FieldValues): { args: Record<string, unknown>; errors: Record<string, string> } {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const raw = values[field.name];
    // Blank text is a value only for a string parameter (it may mean "all spaces" on purpose).
    const unset = raw === undefined || raw === '' || (field.kind !== 'string' && typeof raw === 'string' && raw.trim() === '');
    if (unset) {
      if (field.required) errors[field.name] = 'Required';
      continue;
    }
    switch (field.kind) {
      case 'string':
        args[field.name] = String(raw);
        break;
      case 'boolean':
        args[field.name] = raw === true;
        break;
      case 'integer':
      case 'number': {
        const number = typeof raw === 'number' ? raw : Number(raw);
        if (!Number.isFinite(number)) errors[field.name] = 'Enter a number';
        else if (field.kind === 'integer' && !Number.isInteger(number)) errors[field.name] = 'Enter a whole number';
        else args[field.name] = number;
        break;
      }
      case 'enum':
        args[field.name] = JSON.parse(String(raw)) as unknown;
        break;
      case 'json': {
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(raw));
        } catch {
          errors[field.name] = 'Not valid JSON';
          break;
        }
        const isArray = Array.isArray(parsed);
        const isObject = typeof parsed === 'object' && parsed !== null && !isArray;
        if (field.jsonType === 'array' && !isArray) errors[field.name] = 'Enter a JSON array, like ["a", "b"]';
        else if (field.jsonType === 'object' && !isObject) errors[field.name] = 'Enter a JSON object, like {"key": "value"}';
        else args[field.name] = parsed;
        break;
      }
    }
  }
  return { args, errors };
}
