import type { AgentType, MemoryBlock, ToolRule } from '../agent-state.js';
import { renderToolRule } from '../tool-rules/solver.js';
import { DEFAULT_SYSTEM_PROMPTS } from './default-prompts.js';

export { DEFAULT_SYSTEM_PROMPTS };

export const CORE_MEMORY_PLACEHOLDER = '{CORE_MEMORY}';

export const DEFAULT_BLOCK_LIMIT = 20000;

export const DEFAULT_BLOCK_DESCRIPTIONS: Record<string, string> = {
  persona:
    'Your persona: who you are, how you speak and behave, and what you care about. ' +
    'Keep it consistent, and refine it as your identity and relationship with the user develop.',
  human:
    'What you know about the person you are talking with: their name, preferences, background, goals and ' +
    'anything else worth remembering across conversations.',
};

export type CompileSystemPromptInput = {
  system: string;
  agentType: AgentType;
  blocks: MemoryBlock[];
  toolRules: ToolRule[];
  toolNames: string[];
  agentId: string;
  timezone: string;
  recallMessageCount: number;
  /** Passages in the agent's archival memory; mentioned only when there are some. */
  archivalPassageCount?: number;
  /** The tags used in the agent's archival memory, so the model can filter its searches by them. */
  archivalTags?: string[];
  /** The agent's attached folders and its view of their files; the section is left out when there are none. */
  directories?: PromptDirectories;
  now: Date;
};

export type PromptFile = { name: string; isOpen: boolean; visibleContent: string | null };

export type PromptDirectories = {
  maxFilesOpen: number;
  folders: Array<{ name: string; description: string | null; instructions: string | null; files: PromptFile[] }>;
};

function renderBlock(block: MemoryBlock): string {
  const metadata = [
    ...(block.readOnly ? ['- read_only=true'] : []),
    `- chars_current=${block.value.length}`,
    `- chars_limit=${block.limit}`,
  ];
  return [
    `<${block.label}>`,
    ...(block.description ? ['<description>', block.description, '</description>'] : []),
    '<metadata>',
    ...metadata,
    '</metadata>',
    '<value>',
    block.value,
    '</value>',
    `</${block.label}>`,
  ].join('\n');
}

function renderMemoryBlocks(blocks: MemoryBlock[]): string {
  return [
    '<memory_blocks>',
    'The following memory blocks are currently engaged in your core memory unit:',
    '',
    ...blocks.map((block) => `${renderBlock(block)}\n`),
    '</memory_blocks>',
  ].join('\n');
}

/** Rules about tools the agent does not have would only confuse the model, so they are left out. */
function renderToolUsageRules(rules: ToolRule[], toolNames: string[]): string | null {
  const lines = rules.filter((rule) => toolNames.includes(rule.tool_name)).map((rule) => `- ${renderToolRule(rule)}`);
  if (lines.length === 0) return null;
  return ['<tool_usage_rules>', 'Follow these rules whenever you use tools:', ...lines, '</tool_usage_rules>'].join('\n');
}

function timeFormatter(timezone: string): { formatter: Intl.DateTimeFormat; zone: string } {
  const options: Intl.DateTimeFormatOptions = {
    weekday: 'long',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  };
  try {
    return { formatter: new Intl.DateTimeFormat('en-US', { ...options, timeZone: timezone }), zone: timezone };
  } catch {
    // A stored timezone the runtime does not know must not stop the agent from answering.
    return { formatter: new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' }), zone: 'UTC' };
  }
}

/** ICU versions spell offsets differently ("GMT", "GMT+00:00"), so the offset is derived from the wall time instead. */
function utcOffset(wallTimeAsUtcMs: number, now: Date): string {
  const minutes = Math.round((wallTimeAsUtcMs - Math.floor(now.getTime() / 1000) * 1000) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  return `UTC${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
}

/** `2025-01-02 10:04:05 Thursday (UTC-05:00, America/New_York)`: unambiguous for the model, in the agent's own timezone. */
export function formatSystemTime(now: Date, timezone: string): string {
  const { formatter, zone } = timeFormatter(timezone);
  const parts = Object.fromEntries(formatter.formatToParts(now).map((part) => [part.type, part.value]));
  const [year, month, day, hour, minute, second] = [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second].map(Number);
  const wallTimeAsUtcMs = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.weekday} (${utcOffset(wallTimeAsUtcMs, now)}, ${zone})`;
}

function renderArchivalMetadata(input: CompileSystemPromptInput): string[] {
  const count = input.archivalPassageCount ?? 0;
  if (count === 0) return [];
  const searchHint = input.toolNames.includes('archival_memory_search') ? '; search them with archival_memory_search' : '';
  const tags = input.archivalTags ?? [];
  return [
    `- Archival memory holds ${count} memor${count === 1 ? 'y' : 'ies'}${searchHint}.`,
    ...(tags.length > 0 ? [`- Archival memory tags: ${tags.join(', ')}`] : []),
  ];
}

function attribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

/** A closed file is listed by name only, so the model knows it exists and can open it. */
function renderPromptFile(file: PromptFile): string {
  const name = attribute(file.name);
  if (!file.isOpen) return `<file status="closed" name="${name}"></file>`;
  return [`<file status="open" name="${name}">`, '<value>', file.visibleContent ?? '', '</value>', '</file>'].join('\n');
}

function renderDirectories(directories: PromptDirectories | undefined): string | null {
  if (!directories || directories.folders.length === 0) return null;
  const openCount = directories.folders.reduce((count, folder) => count + folder.files.filter((file) => file.isOpen).length, 0);
  const folders = directories.folders.map((folder) =>
    [
      `<directory name="${attribute(folder.name)}">`,
      ...(folder.description ? ['<description>', folder.description, '</description>'] : []),
      ...(folder.instructions ? ['<instructions>', folder.instructions, '</instructions>'] : []),
      ...folder.files.map(renderPromptFile),
      '</directory>',
    ].join('\n'),
  );
  return [
    '<directories>',
    '<file_limits>',
    `- current_files_open=${openCount}`,
    `- max_files_open=${directories.maxFilesOpen}`,
    '</file_limits>',
    ...folders,
    '</directories>',
  ].join('\n');
}

function renderMemoryMetadata(input: CompileSystemPromptInput): string {
  const count = input.recallMessageCount;
  const searchHint = input.toolNames.includes('conversation_search') ? '; search them with conversation_search' : '';
  return [
    '<memory_metadata>',
    `- Agent ID: ${input.agentId}`,
    `- Current system time: ${formatSystemTime(input.now, input.timezone)}`,
    `- Recall memory holds ${count} previous message${count === 1 ? '' : 's'} of your conversations${searchHint}.`,
    ...renderArchivalMetadata(input),
    '</memory_metadata>',
  ].join('\n');
}

function hasMemoryBlockSection(agentType: AgentType): boolean {
  return agentType !== 'react_agent' && agentType !== 'workflow_agent';
}

/** The agent's system message: its template with the memory blocks, tool rules, attached folders and memory metadata filled in. */
export function compileSystemPrompt(input: CompileSystemPromptInput): string {
  const memory = [
    hasMemoryBlockSection(input.agentType) ? renderMemoryBlocks(input.blocks) : null,
    renderToolUsageRules(input.toolRules, input.toolNames),
    renderDirectories(input.directories),
    renderMemoryMetadata(input),
  ]
    .filter((section): section is string => section !== null)
    .join('\n\n');
  if (input.system.includes(CORE_MEMORY_PLACEHOLDER)) return input.system.split(CORE_MEMORY_PLACEHOLDER).join(memory);
  return `${input.system}\n\n${memory}`;
}
