import { randomUUID } from 'node:crypto';

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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}-${randomUUID()}`;
}

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}-${UUID_V4}$`);
}

export function isId(kind: IdKind, value: string): boolean {
  return idPattern(kind).test(value);
}
