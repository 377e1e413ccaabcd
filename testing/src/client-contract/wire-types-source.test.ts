import { describe, expect, it } from 'vitest';
import { wireTypesSource } from './wire-types-source.js';

describe('wireTypesSource', () => {
  it('declares each output component as a type: required and optional fields, null, enums, references, arrays', () => {
    const source = wireTypesSource({
      Run: {
        type: 'object',
        description: 'One send.',
        properties: {
          id: { type: 'string' },
          status: { type: 'string', enum: ['created', 'running'] },
          stop_reason: { anyOf: [{ $ref: '#/components/schemas/StopReason' }, { type: 'null' }] },
          steps: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
          callback_url: { type: ['string', 'null'] },
        },
        required: ['id', 'status', 'stop_reason'],
        additionalProperties: false,
      },
      RunInput: { type: 'object', properties: { id: { type: 'string' } } },
      StopReason: { type: 'string', enum: ['end_turn'] },
    });
    expect(source).toContain(`/** One send. */
export type Run = {
  id: string;
  status: "created" | "running";
  stop_reason: StopReason | null;
  steps?: (string | number)[];
  callback_url?: string | null;
};`);
    expect(source).toContain('export type StopReason = "end_turn";');
    expect(source).not.toContain('RunInput');
  });

  it('keeps the unnamed keys of a loose object, types a record by its values, and an always-empty array as never[]', () => {
    const source = wireTypesSource({
      Loose: { type: 'object', properties: { type: { const: 'image' } }, required: ['type'], additionalProperties: {} },
      Metadata: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'integer' } },
      Empty: { type: 'array', items: { not: {} } },
      OddKey: { type: 'object', properties: { 'a-b': { type: 'boolean' } }, additionalProperties: false },
    });
    expect(source).toContain('export type Loose = {\n  type: "image";\n  [key: string]: unknown;\n};');
    expect(source).toContain('export type Metadata = Record<string, number>;');
    expect(source).toContain('export type Empty = never[];');
    expect(source).toContain('  "a-b"?: boolean;');
  });
});
