import type { Shape } from './client-operations.js';

/** A JSON Schema as `/openapi.json` carries it (OpenAPI 3.1: JSON Schema 2020-12, `$ref`s into components). */
export type JsonSchema = { [keyword: string]: unknown };

type Resolve = (ref: string) => JsonSchema;

/** Our schema with `null` taken out of it, told apart like a client `Shape`. */
type Ours = { nullable: boolean } & (
  | { kind: 'any' }
  | { kind: 'string' | 'number' | 'boolean' | 'null' }
  | { kind: 'enum'; values: unknown[] }
  | { kind: 'array'; item: JsonSchema }
  | { kind: 'object'; properties: Record<string, JsonSchema>; required: Set<string> }
  | { kind: 'union'; members: JsonSchema[] }
);

/**
 * Where our response schema lets through a body the official client's type does not describe: a field the
 * client requires that we may leave out, null where the client takes none, a value outside the client's
 * enum, another type. Fields the client does not know are fine (it ignores them). Empty when they agree.
 */
export function disagreements(client: Shape, ours: JsonSchema, resolve: Resolve, at = '$'): string[] {
  // Nothing the client reads, or nothing we ever send (`{not: {}}`, the items of an array that is always empty).
  if (client.kind === 'any' || isNever(ours)) return [];
  const schema = normalize(ours, resolve);
  const found: string[] = [];
  if (schema.nullable && !client.nullable) found.push(`${at}: may be null, which the client's type does not allow`);
  if (schema.kind === 'union' && client.kind !== 'union') {
    // Every member we may send must be one the client reads.
    return [...found, ...schema.members.flatMap((member) => disagreements({ ...client, nullable: true }, member, resolve, at))];
  }
  if (schema.kind === 'null') return found;
  switch (client.kind) {
    case 'string':
    case 'number':
    case 'boolean':
      if (schema.kind === client.kind) return found;
      if (schema.kind === 'enum' && schema.values.every((value) => typeof value === client.kind)) return found;
      return [...found, `${at}: the client reads a ${client.kind}, ours is ${describeOurs(schema)}`];
    case 'enum': {
      if (schema.kind !== 'enum') return [...found, `${at}: the client knows only ${JSON.stringify(client.values)}, ours is ${describeOurs(schema)}`];
      const unknown = schema.values.filter((value) => !client.values.includes(value as string));
      return unknown.length > 0 ? [...found, `${at}: ${JSON.stringify(unknown)} not among the client's ${JSON.stringify(client.values)}`] : found;
    }
    case 'array':
      if (schema.kind !== 'array') return [...found, `${at}: the client reads an array, ours is ${describeOurs(schema)}`];
      return [...found, ...disagreements(client.item, schema.item, resolve, `${at}[]`)];
    case 'object':
      return [...found, ...objectDisagreements(client, schema, resolve, at)];
    case 'union':
      return [...found, ...unionDisagreements(client, ours, resolve, at)];
  }
}

function objectDisagreements(client: Extract<Shape, { kind: 'object' }>, schema: Ours, resolve: Resolve, at: string): string[] {
  const required = Object.entries(client.properties).filter(([, property]) => property.required).map(([name]) => name);
  if (schema.kind !== 'object') {
    return required.length > 0 || schema.kind !== 'any' ? [`${at}: the client reads an object with ${JSON.stringify(required)}, ours is ${describeOurs(schema)}`] : [];
  }
  const found = required.filter((name) => !schema.required.has(name)).map((name) => `${at}.${name}: required by the client, ${name in schema.properties ? 'optional' : 'missing'} in ours`);
  for (const [name, property] of Object.entries(client.properties)) {
    const ourProperty = schema.properties[name];
    if (ourProperty) found.push(...disagreements(property.shape, ourProperty, resolve, `${at}.${name}`));
  }
  return found;
}

/**
 * Each of our members must agree with one member of the client's union, found by trying. When none does, the
 * closest one is reported: a member whose own literal field (its `type`, say) differs is another member, not
 * a near miss.
 */
function unionDisagreements(client: Extract<Shape, { kind: 'union' }>, ours: JsonSchema, resolve: Resolve, at: string): string[] {
  const schema = normalize(ours, resolve);
  const members = schema.kind === 'union' ? schema.members : [stripNull(ours)];
  const ownLiteral = new RegExp(`^${escapeRegExp(at)}\\.[^.\\[]+: (\\[.*\\] not among|the client knows only)`);
  const distance = (found: string[]) => found.length + 100 * found.filter((problem) => ownLiteral.test(problem)).length;
  return members.flatMap((member) => {
    const candidates = client.members.map((candidate) => disagreements({ ...candidate, nullable: true }, member, resolve, at));
    if (candidates.some((candidate) => candidate.length === 0)) return [];
    return candidates.reduce((closest, candidate) => (distance(candidate) < distance(closest) ? candidate : closest));
  });
}

const isNever = (schema: JsonSchema) =>
  typeof schema.not === 'object' && schema.not !== null && Object.keys(schema.not).length === 0 && Object.keys(schema).length === 1;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function stripNull(schema: JsonSchema): JsonSchema {
  const { anyOf, oneOf, type, ...rest } = schema;
  const members = (anyOf ?? oneOf) as JsonSchema[] | undefined;
  if (members) {
    const present = members.filter((member) => member.type !== 'null');
    return present.length === 1 ? present[0]! : { ...rest, anyOf: present };
  }
  if (Array.isArray(type)) return { ...rest, type: type.filter((name) => name !== 'null') };
  return schema;
}

function normalize(raw: JsonSchema, resolve: Resolve): Ours {
  const schema = typeof raw.$ref === 'string' ? { ...resolve(raw.$ref), ...withoutRef(raw) } : raw;
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return normalize({ ...withoutKey(schema, 'allOf'), ...(schema.allOf[0] as JsonSchema) }, resolve);
  const members = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (members) {
    const resolved = members.map((member) => (typeof member.$ref === 'string' ? resolve(member.$ref) : member));
    const nullable = resolved.some((member) => member.type === 'null' || (member.const === null));
    const present = resolved.filter((member) => member.type !== 'null' && member.const !== null);
    if (present.length === 1) {
      const only = normalize(present[0]!, resolve);
      return { ...only, nullable: nullable || only.nullable };
    }
    if (present.length > 0 && present.every((member) => 'const' in member || Array.isArray(member.enum))) {
      return { kind: 'enum', values: present.flatMap((member) => ('const' in member ? [member.const] : (member.enum as unknown[]))), nullable };
    }
    return { kind: 'union', members: present, nullable };
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  const nullable = types.includes('null') || schema.nullable === true;
  const present = types.filter((type) => type !== 'null');
  if (types.length > 0 && present.length === 0) return { kind: 'null', nullable: true };
  if ('const' in schema) return schema.const === null ? { kind: 'null', nullable: true } : { kind: 'enum', values: [schema.const], nullable };
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((value) => value !== null);
    return { kind: 'enum', values, nullable: nullable || values.length < schema.enum.length };
  }
  if (present.length > 1) return { kind: 'union', members: present.map((type) => ({ ...schema, type })), nullable };
  const [type] = present;
  if (type === 'object' || (!type && schema.properties)) {
    return {
      kind: 'object',
      properties: (schema.properties ?? {}) as Record<string, JsonSchema>,
      required: new Set((schema.required ?? []) as string[]),
      nullable,
    };
  }
  if (type === 'array') return { kind: 'array', item: (schema.items ?? {}) as JsonSchema, nullable };
  if (type === 'string' || type === 'boolean') return { kind: type, nullable };
  if (type === 'number' || type === 'integer') return { kind: 'number', nullable };
  if (type === 'null') return { kind: 'null', nullable: true };
  return { kind: 'any', nullable: true };
}

function withoutRef(schema: JsonSchema): JsonSchema {
  return withoutKey(schema, '$ref');
}

function withoutKey(schema: JsonSchema, key: string): JsonSchema {
  const copy = { ...schema };
  delete copy[key];
  return copy;
}

function describeOurs(schema: Ours): string {
  if (schema.kind === 'enum') return `one of ${JSON.stringify(schema.values)}`;
  if (schema.kind === 'any') return 'not declared';
  return `a${schema.kind === 'array' || schema.kind === 'object' ? 'n' : ''} ${schema.kind}`;
}
