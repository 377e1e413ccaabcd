/*
 * The tool editor's text fields and what they become on the wire: requirements written one a line, a
 * TypeScript tool's JSON schema written as JSON, and the source each language starts from. Pure, so it is
 * tested without a browser.
 */
import type { PackageRequirement, ToolJsonSchema, ToolLanguage } from './tool-types.js';

export const PYTHON_STARTER = `def roll_dice(sides: int, count: int = 1) -> str:
    """Rolls dice and reports each roll and the total.

    Args:
        sides: How many sides each die has.
        count: How many dice to roll.

    Returns:
        str: The rolls and their total.
    """
    import random

    rolls = [random.randint(1, sides) for _ in range(count)]
    print(f"rolled {rolls}")
    return f"{rolls} = {sum(rolls)}"
`;

export const TYPESCRIPT_STARTER = `export function roll_dice(sides: number, count = 1): string {
  const rolls = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
  console.log(\`rolled \${rolls.join(', ')}\`);
  return \`\${rolls.join(' + ')} = \${rolls.reduce((sum, roll) => sum + roll, 0)}\`;
}
`;

/** A TypeScript tool's schema is not derived from its source: this one matches the starter. */
export const TYPESCRIPT_STARTER_SCHEMA: ToolJsonSchema = {
  name: 'roll_dice',
  description: 'Rolls dice and reports each roll and the total.',
  parameters: {
    type: 'object',
    properties: {
      sides: { type: 'number', description: 'How many sides each die has.' },
      count: { type: 'number', description: 'How many dice to roll.' },
    },
    required: ['sides'],
  },
};

export const STARTERS: Record<ToolLanguage, string> = { python: PYTHON_STARTER, typescript: TYPESCRIPT_STARTER };

/** How each language pins a version: `requests==2.32.3`, `lodash@4.17.21`. */
const VERSION_SEPARATOR: Record<ToolLanguage, string> = { python: '==', typescript: '@' };

export function formatRequirements(requirements: PackageRequirement[] | null, language: ToolLanguage): string {
  return (requirements ?? []).map(({ name, version }) => (version ? `${name}${VERSION_SEPARATOR[language]}${version}` : name)).join('\n');
}

/** One requirement a line; a scoped npm package (`@scope/name@1.0.0`) keeps its leading `@`. */
export function parseRequirements(text: string, language: ToolLanguage): PackageRequirement[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const separator = VERSION_SEPARATOR[language];
      const at = language === 'python' ? line.indexOf(separator) : line.lastIndexOf(separator);
      if (at <= 0) return { name: line };
      return { name: line.slice(0, at).trim(), version: line.slice(at + separator.length).trim() || null };
    });
}

/** The JSON schema typed for a TypeScript tool, or what is wrong with it (the API checks the rest). */
export function parseSchemaText(text: string): { schema: ToolJsonSchema } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: 'The schema must be a JSON object' };
  const { name, parameters } = parsed as { name?: unknown; parameters?: unknown };
  if (typeof name !== 'string' || name === '') return { error: 'The schema needs a "name": it is the name of the tool' };
  if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))) {
    return { error: '"parameters" must be an object schema' };
  }
  return { schema: parsed as ToolJsonSchema };
}

export const schemaText = (schema: ToolJsonSchema) => JSON.stringify(schema, null, 2);
