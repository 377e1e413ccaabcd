import fc from 'fast-check';

/**
 * Reads the operations of `/openapi.json` and builds hostile requests for them with fast-check: the
 * classes of input that once reached PostgreSQL (NUL bytes, lone surrogates, ids and cursors of no known
 * shape) and the ones that stress the server itself (oversized strings, deeply nested JSON, wrong types).
 */

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  minLength?: number;
  format?: string;
};

type OpenApiParameter = { name: string; in: string; schema?: JsonSchema };
type OpenApiOperation = {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
};
export type OpenApiDocument = {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

export type Operation = {
  method: string;
  /** The OpenAPI path, `/v1/agents/{agent_id}/`. */
  path: string;
  pathParams: string[];
  /** Query parameters, with whether each declares a pattern (as cursors of id-paged lists do). */
  queryParams: Array<{ name: string; patterned: boolean }>;
  /** The JSON body's schema, with references resolved as they are reached. */
  body: JsonSchema | undefined;
};

/** What a request carries that the server must survive. */
export type PoisonClass =
  | 'path-id'
  | 'query-text'
  | 'cursor'
  | 'body-text'
  | 'body-wrong-type'
  | 'body-oversized'
  | 'body-deep'
  | 'body-not-an-object'
  | 'name-oversized';

/** Classes the input rules refuse outright (so a request carrying one writes nothing). */
export const REFUSED_CLASSES: ReadonlySet<PoisonClass> = new Set(['path-id', 'query-text', 'cursor', 'body-text', 'body-deep', 'name-oversized']);

/**
 * Body fields where a name belongs (names, titles, labels, summaries, descriptions, and any `…_name` or `…Name`):
 * every one has a length limit, so 100,000 characters there are refused and never stored.
 */
export const NAME_FIELD = /^(name|title|label|summary|description|[a-z_]+_name|[a-z_]+_label|[a-z][A-Za-z]*Name|[a-z][A-Za-z]*Label)$/;

/** Far longer than any name, title, label or description may be. */
export const NAME_OVERSIZED_LENGTH = 100_000;

/** `field`: the body field that carries the poison, where one does. */
export type FuzzRequest = { operation: Operation; poison: PoisonClass; method: string; url: string; body: string | undefined; field?: string };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
        queryParams: parameters
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => ({ name: parameter.name, patterned: typeof (parameter.schema as { pattern?: unknown } | undefined)?.pattern === 'string' })),
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

function resolve(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    current = document.components?.schemas?.[current.$ref.split('/').pop()!] ?? {};
  }
  return current;
}

function typesOf(schema: JsonSchema): string[] {
  return schema.type === undefined ? [] : [schema.type].flat();
}

/** The least value a schema accepts, so that a request fails on the one value the fuzzer poisoned. */
export function plausibleValue(document: OpenApiDocument, raw: JsonSchema, depth = 0): unknown {
  const schema = resolve(document, raw);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const option = (schema.anyOf ?? schema.oneOf)?.find((candidate) => !typesOf(resolve(document, candidate)).includes('null'));
  if (option) return plausibleValue(document, option, depth + 1);
  if (schema.allOf?.[0]) return plausibleValue(document, schema.allOf[0], depth + 1);
  const type = typesOf(schema).find((candidate) => candidate !== 'null') ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      if (depth > 6) return value;
      for (const name of schema.required ?? []) {
        const property = schema.properties?.[name];
        value[name] = property ? plausibleValue(document, property, depth + 1) : 'fuzz';
      }
      return value;
    }
    case 'string':
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'uri' || schema.format === 'url') return 'http://127.0.0.1:9/';
      return 'fuzz'.padEnd(schema.minLength ?? 0, 'z');
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default:
      return null;
  }
}

/** Paths of the body's top-level and nested object properties, with whether each holds text. */
function propertyPaths(document: OpenApiDocument, raw: JsonSchema, prefix: string[] = [], depth = 0): Array<{ path: string[]; text: boolean }> {
  const schema = resolve(document, raw);
  const flattened = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].map((part) => resolve(document, part));
  const paths: Array<{ path: string[]; text: boolean }> = [];
  for (const part of flattened) {
    for (const [name, property] of Object.entries(part.properties ?? {})) {
      const resolved = resolve(document, property);
      const alternatives = [resolved, ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])].map((alternative) => resolve(document, alternative));
      paths.push({ path: [...prefix, name], text: alternatives.some((alternative) => typesOf(alternative).includes('string')) });
      if (depth < 2 && alternatives.some((alternative) => alternative.properties)) {
        paths.push(...propertyPaths(document, property, [...prefix, name], depth + 1));
      }
    }
  }
  return paths;
}

function withValueAt(base: unknown, path: string[], value: unknown): unknown {
  const root: Record<string, unknown> = typeof base === 'object' && base !== null && !Array.isArray(base) ? structuredClone(base) as Record<string, unknown> : {};
  let node = root;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    node[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1)!] = value;
  return root;
}

/** Text with a NUL byte somewhere in it, which PostgreSQL refuses in text and jsonb alike. */
export const nulText = fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })).map(([before, after]) => `${before}\u0000${after}`);

/** Text with an unpaired UTF-16 surrogate, which jsonb refuses and UTF-8 cannot carry. */
export const loneSurrogateText = fc
  .tuple(fc.string({ maxLength: 12 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 12 }))
  .map(([before, unit, after]) => `${before}${String.fromCharCode(unit)}${after}`);

const unstorableText = fc.oneof(nulText, loneSurrogateText);

/** Values in the place of an id that are not `<prefix>-<uuid>`: unstorable text, garbage, a bare uuid, an endless id. */
export const badId = fc.oneof(
  unstorableText,
  fc.string({ minLength: 1, maxLength: 40 }).filter((text) => !/^[a-z_]+-[0-9a-f-]{36}$/.test(text)),
  fc.uuid(),
  fc.tuple(fc.constantFrom('agent', 'block', 'run', 'message'), fc.string({ minLength: 1, maxLength: 20 })).map(([prefix, rest]) => `${prefix}-${rest}`),
  fc.integer({ min: 2_000, max: 8_000 }).map((length) => `agent-${'9'.repeat(length)}`),
);

const wrongType = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }));

/** A body far larger than any field needs (within the JSON body limit, which a test of its own covers). */
const oversizedText = fc.integer({ min: 20_000, max: 120_000 }).map((length) => 'x'.repeat(length));

/** JSON nested deeper than any wire shape (arrays or objects), written out by hand since JSON.stringify would recurse as deep. */
const deepJson = fc
  .tuple(fc.integer({ min: 200, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

/**
 * Percent-encodes like encodeURIComponent, except that a lone surrogate (which encodeURIComponent refuses)
 * is sent as the three bytes a careless client would write for it (WTF-8), so the server sees it too.
 */
export function percentEncode(text: string): string {
  let encoded = '';
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    const paired = unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    if (paired) {
      encoded += encodeURIComponent(text.slice(index, index + 2));
      index++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      encoded += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      encoded += encodeURIComponent(text[index]!);
    }
  }
  return encoded;
}

function fillPath(operation: Operation, values: Record<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, param: string) => percentEncode(values[param]!));
}

export type RequestPlan = {
  runsPerClass: number;
  seed: number;
  /** Top-level body fields this operation strips NUL bytes from (so only a lone surrogate is refused there). */
  nulStrippedFields?: readonly string[];
};

/** Every hostile request for one operation: a few of each class that applies to it. */
export function hostileRequests(
  document: OpenApiDocument,
  operation: Operation,
  paramValue: (param: string) => string,
  plan: RequestPlan,
): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  const sample = <T>(arbitrary: fc.Arbitrary<T>) => fc.sample(arbitrary, { numRuns: plan.runsPerClass, seed: plan.seed });
  const baseParams = Object.fromEntries(operation.pathParams.map((param) => [param, paramValue(param)]));
  const url = (params: Record<string, string>, query = '') => `${fillPath(operation, params)}${query}`;
  const hasBody = operation.method !== 'GET' && operation.method !== 'DELETE';
  const baseBody = operation.body ? plausibleValue(document, operation.body) : hasBody ? {} : undefined;
  const bodyText = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));
  const add = (poison: PoisonClass, target: string, body: string | undefined, field?: string) =>
    requests.push({ operation, poison, method: operation.method, url: target, body, ...(field ? { field } : {}) });

  for (const param of operation.pathParams) {
    for (const value of sample(badId)) add('path-id', url({ ...baseParams, [param]: value }), bodyText(baseBody));
  }
  for (const { name, patterned } of operation.queryParams) {
    const query = (value: string) => url(baseParams, `?${name}=${percentEncode(value)}`);
    // A URL carries a lone surrogate only as bytes that are not UTF-8, which decode to U+FFFD: only NUL
    // survives into a query value. A cursor that declares its shape must refuse any other shape too.
    for (const value of sample(patterned ? badId : nulText)) {
      add(name === 'after' || name === 'before' ? 'cursor' : 'query-text', query(value), bodyText(baseBody));
    }
  }
  if (!hasBody) return requests;
  const properties = operation.body ? propertyPaths(document, operation.body) : [];
  const textPaths = properties.filter((property) => property.text).map((property) => property.path);
  // A body with no text field of its own still carries the poison, in a property the route never reads.
  const poisonPaths = textPaths.length > 0 ? textPaths : [['fuzz']];
  const surrogates = sample(loneSurrogateText);
  for (const [index, value] of sample(unstorableText).entries()) {
    const path = poisonPaths[index % poisonPaths.length]!;
    const stripsNul = path.length === 1 && (plan.nulStrippedFields ?? []).includes(path[0]!);
    add('body-text', url(baseParams), bodyText(withValueAt(baseBody, path, stripsNul ? surrogates[index]! : value)));
  }
  for (const path of textPaths.filter((candidate) => NAME_FIELD.test(candidate.at(-1)!))) {
    add('name-oversized', url(baseParams), bodyText(withValueAt(baseBody, path, 'n'.repeat(NAME_OVERSIZED_LENGTH))), path.join('.'));
  }
  for (const value of sample(deepJson)) add('body-deep', url(baseParams), value);
  // A route that declares no body ignores what one carries; only a declared body is worth stressing.
  if (!operation.body) return requests;
  for (const [index, value] of sample(wrongType).entries()) {
    if (properties.length > 0) add('body-wrong-type', url(baseParams), bodyText(withValueAt(baseBody, properties[index % properties.length]!.path, value)));
  }
  for (const [index, value] of sample(oversizedText).entries()) {
    add('body-oversized', url(baseParams), bodyText(withValueAt(baseBody, poisonPaths[index % poisonPaths.length]!, value)));
  }
  for (const value of sample(fc.oneof(wrongType, fc.string({ maxLength: 10 }), fc.constant(null)))) add('body-not-an-object', url(baseParams), JSON.stringify(value));
  return requests;
}
