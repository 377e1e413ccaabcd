import type { Role } from '@engram/db';

/** Who is calling and for which tenant; built once per request, passed to every service call. */
export type RequestContext = {
  organizationId: string;
  userId: string;
  role: Role;
  requestId: string;
  project: { id?: string; slug?: string };
};

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext | null;
  }
  interface FastifyContextConfig {
    /** Reachable without credentials; a presented but invalid key is still refused. */
    public?: boolean;
    /** Top-level body fields whose NUL bytes the service strips, as the reference does, rather than refusing them. */
    nulStrippedBodyFields?: readonly string[];
    /** Body fields (by name) that may be longer than the shared limit of names, summaries and descriptions allows. */
    textLimits?: Readonly<Record<string, number>>;
  }
}
