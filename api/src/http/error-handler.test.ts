import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { ModelErrorKind } from '@engram/core';
import {
  ConflictError,
  ForbiddenError,
  MODEL_ERROR_KINDS,
  NotFoundError,
  RequestTimeoutError,
  UnprocessableError,
  AppError,
  badRequest,
  modelCallError,
  runFailureError,
} from '../errors.js';
import { registerErrorHandling, STATUS_BY_KIND } from './error-handler.js';

async function appWithRoutes() {
  const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  app.post(
    '/items/:itemId',
    {
      schema: {
        params: z.object({ itemId: z.string().startsWith('item-') }),
        querystring: z.object({ limit: z.coerce.number().int().max(10).optional() }),
        body: z.object({ name: z.string().min(1), tags: z.array(z.string()) }),
      },
    },
    async () => ({ ok: true }),
  );
  app.get('/agent', async () => {
    throw new NotFoundError('Agent');
  });
  app.get('/pending', async () => {
    throw new ConflictError({ code: 'PENDING_APPROVAL', message: 'waiting', pending_request_id: 'message-1' });
  });
  app.get('/field', async () => {
    throw new UnprocessableError(['body', 'value'], 'Value exceeds the block limit');
  });
  app.get('/boom', async () => {
    throw new Error('database password is hunter2');
  });
  app.get('/slow-mcp', async () => {
    throw new RequestTimeoutError("MCP server 'weather' did not answer in time");
  });
  app.get('/internal', async () => {
    throw new AppError('internal', 'secret detail');
  });
  app.post('/api/things', { schema: { body: z.object({ name: z.string().min(3, 'Name must be at least 3 characters long') }) } }, async () => ({ ok: true }));
  app.get('/api/too-early', async () => {
    throw badRequest('tooEarly', 'Wait before asking for another code', { nextResendTime: '2030-01-01T00:00:00.000Z' });
  });
  app.get('/api/forbidden', async () => {
    throw new ForbiddenError('You do not have permission to do this');
  });
  app.get('/api/missing', async () => {
    throw new NotFoundError('Project');
  });
  app.get('/api/boom', async () => {
    throw new Error('database password is hunter2');
  });
  await app.ready();
  return app;
}

describe('the error table', () => {
  it('renders schema failures as 422 detail[{loc,msg,type}] with the failing location', async () => {
    const app = await appWithRoutes();
    const response = await app.inject({
      method: 'POST',
      url: '/items/item-1?limit=50',
      payload: { name: 'x', tags: ['a'] },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([{ loc: ['query', 'limit'], msg: expect.any(String), type: 'too_big' }]);

    const body = await app.inject({ method: 'POST', url: '/items/item-1', payload: { name: '', tags: [1] } });
    expect(body.statusCode).toBe(422);
    expect(body.json().detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'name'],
      ['body', 'tags', 0],
    ]);

    const path = await app.inject({ method: 'POST', url: '/items/nope', payload: { name: 'a', tags: [] } });
    expect(path.json().detail[0].loc).toEqual(['path', 'itemId']);
  });

  it('renders malformed JSON as 422 and an unknown content type as 415', async () => {
    const app = await appWithRoutes();
    const malformed = await app.inject({
      method: 'POST',
      url: '/items/item-1',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });

    const wrongType = await app.inject({
      method: 'POST',
      url: '/items/item-1',
      headers: { 'content-type': 'application/x-thing' },
      payload: 'x',
    });
    expect(wrongType.statusCode).toBe(415);
  });

  it('maps typed domain errors to their status with detail', async () => {
    const app = await appWithRoutes();
    const agent = await app.inject({ method: 'GET', url: '/agent' });
    expect(agent.statusCode).toBe(404);
    expect(agent.json()).toEqual({ detail: 'Agent not found' });

    const pending = await app.inject({ method: 'GET', url: '/pending' });
    expect(pending.statusCode).toBe(409);
    expect(pending.json().detail).toMatchObject({ code: 'PENDING_APPROVAL', pending_request_id: 'message-1' });

    const field = await app.inject({ method: 'GET', url: '/field' });
    expect(field.statusCode).toBe(422);
    expect(field.json()).toEqual({
      detail: [{ loc: ['body', 'value'], msg: 'Value exceeds the block limit', type: 'value_error' }],
    });
  });

  it('answers a server that was too slow to answer with 408, from the table like every other kind', async () => {
    const app = await appWithRoutes();
    const slow = await app.inject({ method: 'GET', url: '/slow-mcp' });
    expect(slow.statusCode).toBe(408);
    expect(slow.json()).toEqual({ detail: "MCP server 'weather' did not answer in time" });
  });

  it('maps every model error kind, and every run failure, through one table', () => {
    const statusOf = (error: AppError) => STATUS_BY_KIND[error.kind];
    const expected: Record<ModelErrorKind, number> = {
      not_configured: 400,
      bad_request: 400,
      context_overflow: 400,
      authentication: 401,
      rate_limit: 429,
      timeout: 504,
      server: 502,
      connection: 502,
      invalid_response: 502,
    };
    expect(Object.keys(MODEL_ERROR_KINDS).sort()).toEqual(Object.keys(expected).sort());
    for (const [kind, status] of Object.entries(expected) as Array<[ModelErrorKind, number]>) {
      expect(statusOf(modelCallError(kind, 'provider said no')), kind).toBe(status);
      const fromRun = runFailureError({ error_type: kind, message: 'provider said no' });
      expect([statusOf(fromRun), fromRun.detail], kind).toEqual([status, 'provider said no']);
    }
    const pending = runFailureError({ error_type: 'PENDING_APPROVAL', message: 'waiting for approval' });
    expect([statusOf(pending), pending.detail]).toEqual([409, { code: 'PENDING_APPROVAL', message: 'waiting for approval' }]);
    expect(statusOf(runFailureError({ error_type: 'invalid_request', message: 'nothing awaits approval' }))).toBe(400);
    expect(statusOf(runFailureError({ error_type: 'internal_error', message: 'the run failed' }))).toBe(500);
    expect(statusOf(runFailureError({ error_type: 'toString', message: 'not a kind' }))).toBe(500);
  });

  it('masks unexpected and internal errors', async () => {
    const app = await appWithRoutes();
    for (const url of ['/boom', '/internal']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(500);
      expect(response.body).not.toMatch(/hunter2|secret detail/);
      expect(response.json().detail).toBe('An unknown error occurred');
    }
  });

  it('answers unknown routes with a 404 detail', async () => {
    const app = await appWithRoutes();
    const response = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json().detail).toMatch(/Not Found/);
  });
});

describe('the console API (/api)', () => {
  it("renders errors as {message, errorCode} with the spec's codes", async () => {
    const app = await appWithRoutes();
    const tooEarly = await app.inject({ method: 'GET', url: '/api/too-early' });
    expect(tooEarly.statusCode).toBe(400);
    expect(tooEarly.json()).toEqual({ message: 'Wait before asking for another code', errorCode: 'tooEarly', nextResendTime: '2030-01-01T00:00:00.000Z' });

    const forbidden = await app.inject({ method: 'GET', url: '/api/forbidden' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ message: 'You do not have permission to do this', errorCode: 'noPermission' });

    expect((await app.inject({ method: 'GET', url: '/api/missing' })).json()).toEqual({ message: 'Project not found' });
    expect((await app.inject({ method: 'GET', url: '/api/nowhere' })).json()).toEqual({ message: 'Not Found: GET /api/nowhere' });
  });

  it('renders validation failures as 400 errorCode validation, and masks unexpected errors', async () => {
    const app = await appWithRoutes();
    const invalid = await app.inject({ method: 'POST', url: '/api/things', payload: { name: 'ab' } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({
      message: 'Name must be at least 3 characters long',
      errorCode: 'validation',
      issues: [{ loc: ['body', 'name'], msg: 'Name must be at least 3 characters long', type: 'too_small' }],
    });
    const boom = await app.inject({ method: 'GET', url: '/api/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.body).not.toContain('hunter2');
    expect(boom.json().message).toBe('An unknown error occurred');
  });
});
