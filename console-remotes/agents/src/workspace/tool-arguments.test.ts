import { describe, expect, it } from 'vitest';
import { initialValues, toolArguments, toolFields, type ToolSchema } from './tool-arguments.js';

/** What the Python schema generator makes of `def book(city: str, nights: int, rate: float, vip: bool = False, room: Literal["single", "double"] = "double", extras: list[str] | None = None, notes: dict | None = None)`. */
const schema: ToolSchema = {
  parameters: {
    properties: {
      city: { type: 'string', description: 'Where to stay' },
      nights: { type: 'integer' },
      rate: { type: 'number' },
      vip: { type: 'boolean', default: false },
      room: { type: 'string', enum: ['single', 'double'], default: 'double' },
      extras: { type: 'array', description: 'Anything else' },
      notes: { type: ['object', 'null'] },
      either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    },
    required: ['city', 'nights', 'rate'],
  },
};

describe('the tool run form', () => {
  const fields = toolFields(schema);

  it('gives each parameter an input of its type, marks the required ones, and writes arrays, objects and unions as JSON', () => {
    expect(fields.map(({ name, kind, required, jsonType }) => ({ name, kind, required, jsonType }))).toEqual([
      { name: 'city', kind: 'string', required: true, jsonType: null },
      { name: 'nights', kind: 'integer', required: true, jsonType: null },
      { name: 'rate', kind: 'number', required: true, jsonType: null },
      { name: 'vip', kind: 'boolean', required: false, jsonType: null },
      { name: 'room', kind: 'enum', required: false, jsonType: null },
      { name: 'extras', kind: 'json', required: false, jsonType: 'array' },
      { name: 'notes', kind: 'json', required: false, jsonType: 'object' },
      { name: 'either', kind: 'json', required: false, jsonType: null },
    ]);
    expect(fields[0]?.description).toBe('Where to stay');
    expect(fields[4]?.options).toEqual([
      { value: '"single"', label: 'single' },
      { value: '"double"', label: 'double' },
    ]);
  });

  it('puts the required parameters first, in the order `required` lists them (stored schemas lose the order of properties)', () => {
    const stored: ToolSchema = { parameters: { properties: { pets: { type: 'boolean' }, budget: { type: 'number' }, city: { type: 'string' } }, required: ['city', 'budget'] } };
    expect(toolFields(stored).map((field) => field.name)).toEqual(['city', 'budget', 'pets']);
  });

  it('starts from the schema defaults', () => {
    expect(initialValues(schema, fields)).toEqual({ vip: false, room: '"double"' });
  });

  it('makes typed arguments, leaving out optional fields left empty', () => {
    const values = { city: 'Lisbon', nights: 3, rate: '99.5', vip: true, room: '"single"', extras: '["breakfast"]', notes: ' ', either: '7' };
    expect(toolArguments(fields, values)).toEqual({
      args: { city: 'Lisbon', nights: 3, rate: 99.5, vip: true, room: 'single', extras: ['breakfast'], either: 7 },
      errors: {},
    });
  });

  it('names each field that cannot be sent', () => {
    const { args, errors } = toolArguments(fields, { city: '', nights: 2.5, rate: 'cheap', extras: '{"a": 1}', notes: '{oops' });
    expect(errors).toEqual({
      city: 'Required',
      nights: 'Enter a whole number',
      rate: 'Enter a number',
      extras: 'Enter a JSON array, like ["a", "b"]',
      notes: 'Not valid JSON',
    });
    expect(args).toEqual({});
  });

  it('runs a tool without parameters with no arguments', () => {
    expect(toolFields({})).toEqual([]);
    expect(toolArguments([], {})).toEqual({ args: {}, errors: {} });
  });
});
