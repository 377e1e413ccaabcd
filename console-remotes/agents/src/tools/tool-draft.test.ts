import { describe, expect, it } from 'vitest';
import { formatRequirements, parseRequirements, parseSchemaText, schemaText, TYPESCRIPT_STARTER_SCHEMA } from './tool-draft.js';

describe("the tool editor's fields", () => {
  it('reads requirements one a line, pinned the way each language pins them', () => {
    expect(parseRequirements('requests==2.32.3\n\n  numpy \n# a comment\n', 'python')).toEqual([{ name: 'requests', version: '2.32.3' }, { name: 'numpy' }]);
    expect(parseRequirements('lodash@4.17.21\n@scope/kit@1.0.0\n@scope/bare', 'typescript')).toEqual([
      { name: 'lodash', version: '4.17.21' },
      { name: '@scope/kit', version: '1.0.0' },
      { name: '@scope/bare' },
    ]);
  });

  it('writes requirements back as they are read', () => {
    const python = [{ name: 'requests', version: '2.32.3' }, { name: 'numpy', version: null }];
    expect(parseRequirements(formatRequirements(python, 'python'), 'python')).toEqual([{ name: 'requests', version: '2.32.3' }, { name: 'numpy' }]);
    expect(formatRequirements([{ name: '@scope/kit', version: '1.0.0' }], 'typescript')).toBe('@scope/kit@1.0.0');
    expect(formatRequirements(null, 'python')).toBe('');
  });

  it('takes a TypeScript schema that names the tool, and says what is wrong with one that does not', () => {
    expect(parseSchemaText(schemaText(TYPESCRIPT_STARTER_SCHEMA))).toEqual({ schema: TYPESCRIPT_STARTER_SCHEMA });
    expect(parseSchemaText('{"name": ')).toMatchObject({ error: expect.stringMatching(/^Not valid JSON: /) });
    expect(parseSchemaText('[]')).toEqual({ error: 'The schema must be a JSON object' });
    expect(parseSchemaText('{"description": "no name"}')).toEqual({ error: 'The schema needs a "name": it is the name of the tool' });
    expect(parseSchemaText('{"name": "x", "parameters": []}')).toEqual({ error: '"parameters" must be an object schema' });
  });
});
