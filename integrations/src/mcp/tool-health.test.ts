import { describe, expect, it } from 'vitest';
import { assessToolHealth } from './tool-health.js';

const tool = (inputSchema: Record<string, unknown>, name = 'lookup') => ({ name, inputSchema: inputSchema as { type: 'object' } });

describe('MCP tool schema health', () => {
  it('is strict-compliant when every object closes its properties and requires all of them', () => {
    const health = assessToolHealth(
      tool({
        type: 'object',
        properties: { query: { type: 'string' }, filters: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'], additionalProperties: false } },
        required: ['query', 'filters'],
        additionalProperties: false,
      }),
    );
    expect(health).toEqual({ status: 'STRICT_COMPLIANT', reasons: [] });
  });

  it('is usable only outside strict mode with optional properties or open objects, and says where', () => {
    const health = assessToolHealth(tool({ type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] }));
    expect(health.status).toBe('NON_STRICT_ONLY');
    expect(health.reasons).toEqual(['inputSchema: optional properties limit (strict mode requires every property)', 'inputSchema: additionalProperties is not false']);
  });

  it('is invalid for schemas a provider would reject, listing every problem', () => {
    const health = assessToolHealth(
      tool(
        {
          type: 'object',
          properties: { tags: { type: 'array' }, when: { type: 'datetime' }, nested: { type: 'object', properties: 'nope' } },
          required: ['tags', 'missing'],
        },
        'bad name!',
      ),
    );
    expect(health.status).toBe('INVALID');
    expect(health.reasons).toEqual([
      "name 'bad name!' is not a valid function name (letters, digits, _ and -, at most 64)",
      'inputSchema.required: names unknown properties missing',
      "inputSchema.properties.tags: array without 'items'",
      "inputSchema.properties.when: unknown type 'datetime'",
      'inputSchema.properties.nested.properties: is not an object',
    ]);
  });

  it('requires an object at the top level', () => {
    expect(assessToolHealth(tool({ type: 'string' })).reasons).toEqual(["inputSchema: the top level must be of type 'object'"]);
  });
});
