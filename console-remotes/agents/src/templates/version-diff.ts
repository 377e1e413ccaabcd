import type { AgentState, MemoryVariable, TemplateBlock } from './template-types.js';

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };

/** One thing that differs between two versions, with its text before and after ('' when absent). */
export type StateChange = { field: string; before: string; after: string; lines: DiffLine[] };

/** A line diff (longest common subsequence): unchanged lines, and what was removed and added in between. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1]![j]! >= common[i]![j + 1]!)) lines.push({ kind: 'removed', text: a[i++]! });
    else lines.push({ kind: 'added', text: b[j++]! });
  }
  return lines;
}

const listText = (items: string[]) => [...items].sort().join('\n');
const variablesText = (variables: MemoryVariable[]) =>
  variables.map((variable) => `${variable.key}${variable.defaultValue === null ? '' : ` = ${variable.defaultValue}`}`).join('\n');
const blockSettings = (block: TemplateBlock) =>
  [`limit ${block.limit}`, block.readOnly ? 'read-only' : null, block.preserveOnMigration ? 'kept on migration' : null].filter(Boolean).join(', ');

/** The parts of a state a diff compares, each as text. */
function fieldsOf(state: AgentState): Map<string, string> {
  const fields = new Map<string, string>([
    ['Model', state.model],
    ['System prompt', state.systemPrompt],
    ['Temperature', state.properties.temperature === null ? '' : String(state.properties.temperature)],
    ['Context window', String(state.properties.contextWindow)],
    ['Max tokens', state.properties.maxTokens === null ? '' : String(state.properties.maxTokens)],
    ['Agent type', state.agentType],
    ['Tools', listText(state.toolIds)],
    ['Tool rules', state.toolRules.map((rule) => JSON.stringify(rule)).join('\n')],
    ['Folders', listText(state.sourceIds)],
    ['Tags', listText(state.tags)],
    ['Identities', listText(state.identityIds)],
    ['Memory variables', variablesText(state.memoryVariables)],
    ['Tool variables', variablesText(state.toolVariables)],
  ]);
  for (const block of state.blocks) {
    fields.set(`Block ${block.label}`, block.value);
    fields.set(`Block ${block.label} settings`, blockSettings(block));
  }
  return fields;
}

/** What changed from one version to another, in the order the editor shows a state (blocks after the settings). */
export function diffStates(before: AgentState, after: AgentState): StateChange[] {
  const old = fieldsOf(before);
  const next = fieldsOf(after);
  const names = [...new Set([...old.keys(), ...next.keys()])];
  return names.flatMap((field) => {
    const was = old.get(field) ?? '';
    const now = next.get(field) ?? '';
    return was === now ? [] : [{ field, before: was, after: now, lines: diffLines(was, now) }];
  });
}
