import { describe, expect, it } from 'vitest';
import { identityProperties, propertyDrafts } from './property-draft.js';

describe("an identity's property rows", () => {
  it('give each value its declared type and skip rows left empty', () => {
    expect(
      identityProperties([
        { key: 'plan', type: 'string', value: 'pro' },
        { key: ' seats ', type: 'number', value: '12' },
        { key: 'trial', type: 'boolean', value: 'false' },
        { key: 'limits', type: 'json', value: '{"tokens": 1000}' },
        { key: '', type: 'string', value: '' },
      ]),
    ).toEqual({
      properties: [
        { key: 'plan', type: 'string', value: 'pro' },
        { key: 'seats', type: 'number', value: 12 },
        { key: 'trial', type: 'boolean', value: false },
        { key: 'limits', type: 'json', value: { tokens: 1000 } },
      ],
      errors: {},
    });
  });

  it('name the rows whose value does not fit their type, or whose key is missing or repeated', () => {
    expect(
      identityProperties([
        { key: 'seats', type: 'number', value: 'twelve' },
        { key: 'limits', type: 'json', value: '[1, 2]' },
        { key: '', type: 'string', value: 'orphan' },
        { key: 'seats', type: 'string', value: 'again' },
        { key: 'trial', type: 'boolean', value: '' },
      ]).errors,
    ).toEqual({
      0: 'Enter a number',
      1: 'Enter a JSON object, like {"plan": "pro"}',
      2: 'Name the property',
      3: '"seats" is already set above',
      4: 'Choose true or false',
    });
  });

  it('read stored properties back into rows that make them again', () => {
    const stored = [
      { key: 'seats', type: 'number' as const, value: 3 },
      { key: 'limits', type: 'json' as const, value: { tokens: 5 } },
    ];
    expect(identityProperties(propertyDrafts(stored))).toEqual({ properties: stored, errors: {} });
  });
});
