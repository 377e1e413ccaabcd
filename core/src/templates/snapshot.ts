import type { ToolRule } from '../agent-state.js';

/** A core memory block as a template declares it; `{{variable}}` placeholders in `value` are filled per agent. */
export type TemplateBlock = {
  label: string;
  value: string;
  limit: number;
  description: string | null;
  readOnly: boolean;
  /** A migration keeps an agent's own value of this block. */
  preserveOnMigration: boolean;
  /** The block template it was attached from, if any. */
  blockTemplateId: string | null;
};

export type MemoryVariableType = 'string';

/** A memory variable the template declares; one without a default must be given when an agent is created. */
export type MemoryVariable = { key: string; defaultValue: string | null; type: MemoryVariableType };

/**
 * Everything an agent built from a template takes from it: a template's working state, and (frozen) each
 * saved version. Stored as JSON; model configs stay in the wire shape of `llm_config`/`embedding_config`.
 */
export type TemplateSnapshot = {
  agentType: string;
  system: string;
  llmConfig: { model: string; context_window: number; temperature?: number | null; [key: string]: unknown };
  embeddingConfig: Record<string, unknown> | null;
  toolIds: string[];
  toolRules: ToolRule[];
  sourceIds: string[];
  tags: string[];
  identityIds: string[];
  memoryVariables: MemoryVariable[];
  toolVariables: MemoryVariable[];
  blocks: TemplateBlock[];
};

/** The temperature a template's model runs at unless it says otherwise (spec 000 §3). */
export const DEFAULT_TEMPLATE_TEMPERATURE = 0.7;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The `{{name}}` placeholders of a text, in order of first appearance. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}

/** Replaces each `{{name}}` whose value is known; unknown ones stay as written. */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
}

/**
 * The memory variables a snapshot needs: those it declares, then any other placeholder in its blocks or system
 * prompt (undeclared ones have no default).
 */
export function memoryVariablesOf(snapshot: Pick<TemplateSnapshot, 'memoryVariables' | 'blocks' | 'system'>): MemoryVariable[] {
  const declared = new Map(snapshot.memoryVariables.map((variable) => [variable.key, variable]));
  for (const text of [snapshot.system, ...snapshot.blocks.map((block) => block.value)]) {
    for (const key of placeholdersOf(text)) {
      if (!declared.has(key)) declared.set(key, { key, defaultValue: null, type: 'string' });
    }
  }
  return [...declared.values()];
}

export type ResolvedVariables = { values: Record<string, string>; missing: string[] };

/** The value of every variable: the given one, else its default; `missing` names those with neither. */
export function resolveMemoryVariables(variables: MemoryVariable[], given: Readonly<Record<string, string>>): ResolvedVariables {
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const variable of variables) {
    if (Object.hasOwn(given, variable.key)) values[variable.key] = given[variable.key]!;
    else if (variable.defaultValue !== null) values[variable.key] = variable.defaultValue;
    else missing.push(variable.key);
  }
  // Values for keys the template does not declare are kept: a later version may use them.
  for (const [key, value] of Object.entries(given)) values[key] ??= value;
  return { values, missing };
}

/**
 * The one refusal for a version that cannot become an agent (deploy, migration, dataset run, A/B arm, the editor's
 * simulated agent): the variables without a default that were not given. No agent is made or changed with a
 * `{{variable}}` left in it.
 */
export function missingVariablesMessage(missing: readonly string[]): string {
  return `Missing memory variable${missing.length > 1 ? 's' : ''} without a default: ${missing.join(', ')}`;
}

export type TemplateVersionRef = { templateName: string; version: 'latest' | 'dev' | number };

/**
 * `name`, `name:latest`, `name:dev` or `name:3`; a leading `project-slug/` is accepted and ignored (names are
 * unique in an organization). Undefined when the text is none of these.
 */
export function parseTemplateVersion(text: string): TemplateVersionRef | undefined {
  const withoutProject = text.includes('/') ? text.slice(text.lastIndexOf('/') + 1) : text;
  const [templateName, version, ...rest] = withoutProject.split(':');
  if (!templateName || rest.length > 0) return undefined;
  if (version === undefined || version === 'latest') return { templateName, version: 'latest' };
  if (version === 'dev' || version === 'current') return { templateName, version: 'dev' };
  if (/^[1-9][0-9]*$/.test(version)) return { templateName, version: Number(version) };
  return undefined;
}

export type BlockReconciliationStrategy = 'reconcile-all' | 'preserve-deleted';

export type AgentBlockState = { label: string; value: string };

export type BlockPlan = {
  /** Blocks the agent has, with the value and settings they take. */
  update: Array<{ label: string; value: string; block: TemplateBlock }>;
  /** Template blocks the agent lacks. */
  create: Array<{ label: string; value: string; block: TemplateBlock }>;
  /** The agent's blocks the template no longer has (only with `reconcile-all`). */
  remove: string[];
};

/**
 * How a migration changes an agent's core memory: template blocks are filled with the agent's memory variables;
 * a block marked `preserveOnMigration` (or every block, with `preserveCoreMemories`) keeps the agent's value;
 * blocks the template dropped stay unless the strategy is `reconcile-all`.
 */
export function planBlockMigration(
  agentBlocks: AgentBlockState[],
  templateBlocks: TemplateBlock[],
  variables: Readonly<Record<string, string>>,
  options: { strategy: BlockReconciliationStrategy; preserveCoreMemories: boolean },
): BlockPlan {
  const current = new Map(agentBlocks.map((block) => [block.label, block]));
  const plan: BlockPlan = { update: [], create: [], remove: [] };
  for (const block of templateBlocks) {
    const filled = fillPlaceholders(block.value, variables);
    const existing = current.get(block.label);
    if (!existing) plan.create.push({ label: block.label, value: filled, block });
    else {
      const keep = block.preserveOnMigration || options.preserveCoreMemories;
      plan.update.push({ label: block.label, value: keep ? existing.value : filled, block });
    }
  }
  if (options.strategy === 'reconcile-all') {
    const wanted = new Set(templateBlocks.map((block) => block.label));
    plan.remove = agentBlocks.filter((block) => !wanted.has(block.label)).map((block) => block.label);
  }
  return plan;
}

const TEMPLATE_NAME = /^[A-Za-z0-9_-]+$/;

/** The /v1 message for a bad template name (spec 001 §5), or undefined when it is fine. */
export function templateNameProblem(name: string): string | undefined {
  return TEMPLATE_NAME.test(name) ? undefined : 'Template name can only contain alphanumeric characters, underscores, and dashes';
}

/** The console's messages for a bad template name (spec 000 §5), or undefined when it is fine. */
export function consoleTemplateNameProblem(name: string): string | undefined {
  if (name.length < 3) return 'Name must be at least 3 characters long';
  if (name.length > 50) return 'Name must be at most 50 characters long';
  if (!TEMPLATE_NAME.test(name)) return 'Name must be alphanumeric with underscores or dashes';
  return undefined;
}

const AGENT_FIELD = /^[A-Za-z0-9 _-]+$/;

/** Tags and names of agents created from a template: letters, digits, spaces, dashes, underscores (spec 001 §5). */
export function isTemplateAgentText(text: string): boolean {
  return AGENT_FIELD.test(text);
}

/** JSON with object keys sorted and undefined members left out, so equal values compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * The parts of a snapshot that edits on an agent built from it carry back to the template. Core memory is not
 * among them: an agent edits its own blocks as it talks, and the template's blocks (placeholders and all) are
 * edited on the template itself.
 */
const AGENT_FIELDS = ['agentType', 'system', 'llmConfig', 'embeddingConfig', 'toolIds', 'toolRules', 'sourceIds', 'tags', 'identityIds'] as const;

/**
 * Carries edits made on an agent built from a template back into the template's working state (a three-way
 * merge): `applied` is the agent's state as last built, `current` its state now. Only the fields that changed on
 * the agent since it was built are taken; everything else, blocks and variables included, keeps the working
 * state's own value.
 */
export function mergeAgentEdits(working: TemplateSnapshot, applied: TemplateSnapshot, current: TemplateSnapshot): TemplateSnapshot {
  const merged: TemplateSnapshot = { ...working };
  for (const field of AGENT_FIELDS) {
    if (!sameJson(current[field], applied[field])) (merged as Record<string, unknown>)[field] = current[field];
  }
  return merged;
}
