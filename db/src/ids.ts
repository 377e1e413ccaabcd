import { createHash, randomUUID } from 'node:crypto';

/** Resource id prefixes on the wire, as the public API uses them (`agent-<uuid4>`). */
export const ID_PREFIXES = {
  organization: 'org',
  user: 'user',
  project: 'project',
  apiKey: 'apikey',
  agent: 'agent',
  message: 'message',
  run: 'run',
  step: 'step',
  block: 'block',
  tool: 'tool',
  provider: 'provider',
  job: 'job',
  ping: 'ping',
  identity: 'identity',
  /** Folders and the deprecated sources share one prefix, as on the public API. */
  source: 'source',
  file: 'file',
  fileAgent: 'file_agent',
  template: 'template',
  templateVersion: 'template_version',
  deployment: 'deployment',
  blockTemplate: 'block_template',
  templateMigration: 'template_migration',
  simulatedAgent: 'simulated_agent',
  /** The agent entity of a template, which agents made from it name as their `entity_id`. */
  templateEntity: 'entity',
  batch: 'batch',
  batchItem: 'batch_item',
  scheduledMessage: 'scheduled_message',
  group: 'group',
  groupTurn: 'group_turn',
  agentCall: 'agent_call',
  sharedChat: 'chat',
  sharedChatConversation: 'chat_conversation',
  launchLink: 'launch',
  publishedAgentFile: 'agent_file',
  dataset: 'dataset',
  datasetItem: 'dataset_item',
  datasetRun: 'dataset_run',
  abTest: 'ab_test',
  abTestTemplate: 'ab_test_template',
  conversation: 'conv',
  /** A migration run from another server speaking the Letta API. */
  lettaImport: 'import',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}-${randomUUID()}`;
}

/**
 * A uuid4-shaped value that the same `parts` always give: a copy written again (a retried migration page)
 * lands on the row it wrote before, so an insert that ignores conflicts on `id` makes the write idempotent.
 */
export function derivedUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function derivedId(kind: IdKind, ...parts: string[]): string {
  return `${ID_PREFIXES[kind]}-${derivedUuid(...parts)}`;
}

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}-${UUID_V4}$`);
}

export function isId(kind: IdKind, value: string): boolean {
  return idPattern(kind).test(value);
}
