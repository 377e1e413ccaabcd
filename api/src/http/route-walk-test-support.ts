import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ID_PREFIXES } from '@engram/db';
import type { CookieJar } from '@engram/testing/cookie-jar';
import { OWNED_RESOURCE_PARAMS } from '../services/tenancy/tenant-guard.js';
import type { RouteAccess } from './auth.js';

/** Credentials of one caller: an API key for `/v1`, a browser cookie jar for `/api`. */
export type Caller = { apiKey: string; jar: CookieJar };

/** `status` 0: no answer in time. */
export type WalkedResponse = { route: RouteAccess; path: string; status: number; text: string };

/** Every route of the app once (HEAD is GET again), in registration order. */
export function walkableRoutes(app: FastifyInstance): RouteAccess[] {
  return app.routeAccess.filter((route) => route.method !== 'HEAD');
}

export const pathParams = (url: string): string[] => [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);

/**
 * A value for a path parameter nobody owns: a known resource parameter gets its own id shape; other
 * `<thing>_id` get `<thing>-<uuid>`, the public API's id shape; `<thing>Id` a bare uuid, the console's;
 * anything else a plain word.
 */
export function unknownValue(param: string): string {
  const shaped = OWNED_RESOURCE_PARAMS[param]?.idShape;
  if (shaped) {
    // A resource parameter gets a value of its own id shape, so the walk reaches access control and the lookup.
    const uuid = randomUUID();
    const candidates = [
      // Besides ids, a template migration is named by its workflow id.
      ...[...Object.values(ID_PREFIXES), 'archive', 'passage', 'sandbox', 'sandbox-env', `template-migration-${ID_PREFIXES.templateMigration}`].map((prefix) => `${prefix}-${uuid}`),
      // Stripe's ids: a saved card is named by its PaymentMethod id.
      `pm_${uuid.replace(/-/g, '')}`,
    ];
    const fitting = [uuid, ...candidates].find((candidate) => shaped(candidate));
    if (fitting) return fitting;
  }
  if (param.endsWith('_id')) return `${param.slice(0, -3).replace(/_/g, '-')}-${randomUUID()}`;
  if (param.endsWith('Id')) return randomUUID();
  return `unknown-${randomUUID().slice(0, 8)}`;
}

/** The route's URL with each parameter filled from `known`, else with an unknown value. */
export function fillPath(url: string, known: Record<string, string>): string {
  return url
    .replace(/:([A-Za-z0-9_]+)/g, (_, param: string) => encodeURIComponent(known[param] ?? unknownValue(param)))
    .replace(/\*$/, 'index.html');
}

/** Calls a route as the caller would: writes carry an empty JSON object, the least a client can send. */
export async function callRoute(baseUrl: string, route: RouteAccess, path: string, caller: Caller): Promise<WalkedResponse> {
  const headers: Record<string, string> = {};
  if (path.startsWith('/api/')) {
    const cookie = caller.jar.header();
    if (cookie) headers.cookie = cookie;
  } else {
    headers.authorization = `Bearer ${caller.apiKey}`;
  }
  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  if (hasBody) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method: route.method,
      headers,
      body: hasBody ? '{}' : undefined,
      signal: AbortSignal.timeout(60_000),
    });
    return { route, path, status: response.status, text: await response.text() };
  } catch (error) {
    // A route that never answers (or streams forever) is reported with the others, not as a crash of the walk.
    if ((error as Error).name === 'TimeoutError') return { route, path, status: 0, text: 'no answer within 60 s' };
    throw error;
  }
}
