import { afterAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestStack } from '@engram/testing';
import { ENGRAM_VERSION } from '../../config.js';

const stack = await startTestStack({ inProcessWorker: false });
afterAll(() => stack.stop());

describe('GET /v1/health over real HTTP', () => {
  it('answers with and without the trailing slash for a valid key', async () => {
    for (const path of ['/v1/health/', '/v1/health']) {
      const response = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${stack.apiKey}` } });
      expect(response.status).toBe(200);
      // `version` is the Letta API level (Letta Code warns below 0.16.6); Engram's own release is apart.
      expect(await response.json()).toEqual({ version: '0.16.8', engram_version: ENGRAM_VERSION, status: 'ok' });
      expect(response.headers.get('x-request-id')).toMatch(/^req-/);
    }
  });

  it('refuses a wrong or malformed key with 401 and answers probes without a key', async () => {
    for (const authorization of ['Bearer sk-engram-not-a-real-key', 'Bearer ', 'Basic abc']) {
      const response = await fetch(`${stack.baseUrl}/v1/health/`, { headers: { authorization } });
      expect(response.status, authorization).toBe(401);
      expect(await response.json()).toEqual({ detail: 'Unauthorized' });
    }
    const probe = await fetch(`${stack.baseUrl}/v1/health/`);
    expect(probe.status).toBe(200);
  });

  it('echoes a caller-supplied request id', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/health/`, { headers: { 'x-request-id': 'req-from-client' } });
    expect(response.headers.get('x-request-id')).toBe('req-from-client');
  });
});

describe('API documentation', () => {
  it('serves OpenAPI 3 generated from the route schemas, and a docs page', async () => {
    const spec = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as any;
    expect(spec.openapi).toMatch(/^3\./);
    expect(spec.paths['/v1/health/'].get.responses['200'].content['application/json'].schema.properties.status).toBeDefined();
    // Response shapes are named components the operations refer to.
    expect(spec.paths['/v1/blocks/{block_id}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Block' });
    expect(spec.components.schemas.Block.required).toEqual(expect.arrayContaining(['id', 'label', 'value', 'limit']));

    const docs = await fetch(`${stack.baseUrl}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const spec = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as Record<string, unknown>;
    const validator = new Validator();
    const result = await validator.validate(spec);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });
});
