import type { ClientOperation } from './client-operations.js';
import { disagreements, type JsonSchema } from './schema-agreement.js';

/** The parts of an OpenAPI 3.1 document the agreement reads. */
export type OpenApiDocument = {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> }>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

/**
 * One operation of our document, `GET /v1/blocks/{}`, with what its first 2xx response declares: a JSON
 * schema, no body at all (a 204), or a stream of Server-Sent Events.
 */
export type ServedOperation = {
  method: string;
  path: string;
  documentedPath: string;
  success?: { status: string; schema?: JsonSchema; noBody: boolean; streams: boolean };
};

export type Agreement = {
  operation: ClientOperation;
  route: ServedOperation;
  /** Whether the route declares its success response at all (a schema, no body, or an event stream). */
  declared: boolean;
  /** Where a declared response disagrees with the client's type; empty when they agree. */
  problems: string[];
};

export type AgreementReport = { agreements: Agreement[]; unserved: ClientOperation[] };

/** Whether a route declares what its success response carries. */
export function declaresSuccess(route: ServedOperation): boolean {
  return Boolean(route.success && (route.success.schema || route.success.noBody || route.success.streams));
}

const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** `/v1/agents/{agent_id}/tools/` → `/v1/agents/{}/tools`: parameter names and a trailing slash do not tell routes apart. */
export function normalizePath(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}').replace(/(.)\/$/, '$1');
}

export function servedOperations(document: OpenApiDocument): ServedOperation[] {
  return Object.entries(document.paths).flatMap(([documentedPath, item]) =>
    HTTP_METHODS.filter((method) => item[method]).map((method) => {
      const responses = item[method]!.responses ?? {};
      const status = Object.keys(responses)
        .filter((code) => /^2\d\d$/.test(code))
        .sort()[0];
      const content = status ? (responses[status]!.content ?? {}) : {};
      return {
        method: method.toUpperCase(),
        path: normalizePath(documentedPath),
        documentedPath,
        ...(status
          ? {
              success: {
                status,
                schema: content['application/json']?.schema,
                noBody: status === '204' && Object.keys(content).length === 0,
                streams: 'text/event-stream' in content,
              },
            }
          : {}),
      };
    }),
  );
}

/** The route that serves a client call: the same path, else one whose parameter stands where the client has a word. */
function routeFor(operation: ClientOperation, routes: ServedOperation[]): ServedOperation | undefined {
  const path = normalizePath(operation.path);
  const sameMethod = routes.filter((route) => route.method === operation.method);
  const exact = sameMethod.find((route) => route.path === path);
  if (exact) return exact;
  const segments = path.split('/');
  return sameMethod.find((route) => {
    const routeSegments = route.path.split('/');
    return routeSegments.length === segments.length && routeSegments.every((segment, index) => segment === segments[index] || segment === '{}');
  });
}

/** Each client operation against the route that serves it, or listed as unserved. */
export function checkClientAgreement(operations: ClientOperation[], document: OpenApiDocument): AgreementReport {
  const routes = servedOperations(document);
  const resolve = (ref: string): JsonSchema => {
    const name = ref.replace(/^#\/components\/schemas\//, '');
    const schema = document.components?.schemas?.[name];
    if (!schema) throw new Error(`unresolved $ref ${ref}`);
    return schema;
  };
  const agreements: Agreement[] = [];
  const unserved: ClientOperation[] = [];
  for (const operation of operations) {
    const route = routeFor(operation, routes);
    if (!route) {
      unserved.push(operation);
      continue;
    }
    agreements.push({ operation, route, declared: declaresSuccess(route), problems: problemsOf(operation, route, resolve) });
  }
  return { agreements, unserved };
}

function problemsOf(operation: ClientOperation, route: ServedOperation, resolve: (ref: string) => JsonSchema): string[] {
  const success = route.success;
  if (!success || !declaresSuccess(route)) return [];
  if (operation.response === 'stream') return success.streams ? [] : ['the client reads an event stream; ours declares none'];
  if (success.schema) return disagreements(operation.response, success.schema, resolve);
  if (success.noBody) return operation.response.kind === 'any' ? [] : [`the client reads a body; ours answers ${success.status} without one`];
  return ['the client reads JSON; ours declares only an event stream'];
}
