import { describe, expect, it } from 'vitest';
import type { Shape } from './client-operations.js';
import { disagreements, type JsonSchema } from './schema-agreement.js';

const string: Shape = { kind: 'string', nullable: false };
const block: Shape = {
  kind: 'object',
  nullable: false,
  properties: {
    id: { required: true, shape: string },
    value: { required: true, shape: string },
    label: { required: false, shape: { kind: 'string', nullable: true } },
    kind: { required: false, shape: { kind: 'enum', values: ['core', 'file'], nullable: false } },
  },
};

const components: Record<string, JsonSchema> = {
  Block: {
    type: 'object',
    properties: { id: { type: 'string' }, value: { type: 'string' }, label: { anyOf: [{ type: 'string' }, { type: 'null' }] }, kind: { type: 'string', enum: ['core'] } },
    required: ['id', 'value'],
  },
};
const resolve = (ref: string) => components[ref.replace('#/components/schemas/', '')]!;

describe('a response schema against the client type', () => {
  it('agrees when every required field is required and every value is one the client knows', () => {
    expect(disagreements(block, { $ref: '#/components/schemas/Block' }, resolve)).toEqual([]);
    expect(disagreements({ kind: 'array', item: block, nullable: false }, { type: 'array', items: { $ref: '#/components/schemas/Block' } }, resolve)).toEqual([]);
  });

  it('names a required field we may leave out or do not declare', () => {
    const schema = { type: 'object', properties: { id: { type: 'string' }, value: { type: 'string' } }, required: ['id'] };
    expect(disagreements(block, schema, resolve)).toEqual(['$.value: required by the client, optional in ours']);
    expect(disagreements(block, { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, resolve)).toEqual([
      '$.value: required by the client, missing in ours',
    ]);
  });

  it('names an enum value the client does not know, and a plain string where it expects an enum', () => {
    const withValues = (kind: JsonSchema) => ({ ...components.Block, properties: { ...(components.Block!.properties as object), kind } });
    expect(disagreements(block, withValues({ type: 'string', enum: ['core', 'archival'] }), resolve)).toEqual(['$.kind: ["archival"] not among the client\'s ["core","file"]']);
    expect(disagreements(block, withValues({ type: 'string' }), resolve)).toEqual(['$.kind: the client knows only ["core","file"], ours is a string']);
  });

  it('names null where the client takes none, and another type', () => {
    const schema = { ...components.Block, properties: { ...(components.Block!.properties as object), id: { type: ['string', 'null'] }, value: { type: 'integer' } } };
    expect(disagreements(block, schema, resolve)).toEqual(['$.id: may be null, which the client\'s type does not allow', '$.value: the client reads a string, ours is a number']);
  });

  it('matches each member we may send to a member of the client union', () => {
    const member = (type: string, extra: Record<string, Shape> = {}): Shape => ({
      kind: 'object',
      nullable: false,
      properties: { type: { required: false, shape: { kind: 'enum', values: [type], nullable: false } }, ...Object.fromEntries(Object.entries(extra).map(([name, shape]) => [name, { required: true, shape }])) },
    });
    const client: Shape = { kind: 'union', nullable: false, members: [member('text'), member('json_schema', { json_schema: { kind: 'any', nullable: true } })] };
    const ours = (jsonSchemaRequired: string[]) => ({
      anyOf: [
        { type: 'object', properties: { type: { const: 'text' } }, required: ['type'] },
        { type: 'object', properties: { type: { const: 'json_schema' }, json_schema: { type: 'object' } }, required: ['type', ...jsonSchemaRequired] },
      ],
    });
    expect(disagreements(client, ours(['json_schema']), resolve)).toEqual([]);
    expect(disagreements(client, ours([]), resolve)).toEqual(['$.json_schema: required by the client, optional in ours']);
  });

  it('finds no disagreement in a value we never send, such as the items of an array that is always empty', () => {
    expect(disagreements({ kind: 'array', item: block, nullable: false }, { type: 'array', items: { not: {} } }, resolve)).toEqual([]);
  });
});
