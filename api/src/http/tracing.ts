import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { ENGRAM } from '@engram/core';

declare module 'fastify' {
  interface FastifyRequest {
    span: Span | null;
  }
}

/**
 * One server span per request, named by its route (`POST /v1/agents/:agent_id/messages`). It is made active for
 * the handler, so the Temporal client's spans, and through their headers the workflow's and activities', join
 * the request's trace. The caller's organization and project are recorded once authentication has named them.
 */
export function registerRequestTracing(app: FastifyInstance, tracer: Tracer): void {
  app.decorateRequest('span', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? request.url.split('?')[0] ?? request.url;
    request.span = tracer.startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'http.route': route, 'url.path': request.url.split('?')[0] ?? request.url },
    });
    done();
  });
  // The handler runs in this hook's continuation; body parsing, before it, would lose an earlier context.
  app.addHook('preHandler', (request, _reply, done) => {
    const { span } = request;
    if (!span) return done();
    if (request.ctx) {
      span.setAttribute(ENGRAM.organizationId, request.ctx.organizationId);
      if (request.ctx.project.id) span.setAttribute(ENGRAM.projectId, request.ctx.project.id);
    }
    const agentId = (request.params as Record<string, unknown> | undefined)?.agent_id;
    if (typeof agentId === 'string') span.setAttribute(ENGRAM.agentId, agentId);
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const { span } = request;
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
