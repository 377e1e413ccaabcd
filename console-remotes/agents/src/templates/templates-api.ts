import { CONSOLE_API, send, sendJson } from '@engram/console-kit';
import type {
  AgentTemplate,
  BlockTemplate,
  BlockTemplateFields,
  Migration,
  ReconciliationStrategy,
  SimulatedAgent,
  TemplateVersion,
  WorkingStateChange,
} from './template-types.js';

/*
 * The console API of templates (api/src/routes/console/agent-templates.ts, block-templates.ts,
 * simulated-agents.ts): thin functions, one per route, with the shapes those routes answer.
 */

const api = (suffix: string) => `${CONSOLE_API}${suffix}`;
const segment = encodeURIComponent;

export const templatesApi = {
  list: (query: { search?: string; projectId?: string; offset: number; limit: number }) =>
    sendJson<{ agentTemplates: AgentTemplate[]; hasNextPage: boolean }>(api('/agent-templates'), { query }),
  get: (templateId: string) => sendJson<AgentTemplate>(api(`/agent-templates/${segment(templateId)}`)),
  create: (body: { name: string; agentId: string; description?: string; projectId?: string }) =>
    sendJson<AgentTemplate>(api('/agent-templates'), { method: 'POST', json: body }),
  update: (templateId: string, change: WorkingStateChange) =>
    sendJson<AgentTemplate>(api(`/agent-templates/${segment(templateId)}`), { method: 'PATCH', json: change }),

  versions: (templateId: string, page: { offset: number; limit: number }) =>
    sendJson<{ versions: TemplateVersion[]; hasNextPage: boolean }>(api(`/agent-templates/${segment(templateId)}/versions`), { query: page }),
  saveVersion: (
    templateId: string,
    body: { message?: string; migrate?: { blockReconciliationStrategy: ReconciliationStrategy; memoryVariables: Record<string, string> } },
  ) =>
    sendJson<{ version: TemplateVersion; migration: Migration | null }>(api(`/agent-templates/${segment(templateId)}/versions`), { method: 'POST', json: body }),
  deploy: (versionSlug: string, body: { count: number; name?: string; tags?: string[]; memoryVariables: Record<string, string> }) =>
    sendJson<{ agentIds: string[]; deploymentId: string }>(api(`/template-versions/${segment(versionSlug)}/agents`), { method: 'POST', json: body }),
  migrate: (versionSlug: string, body: { blockReconciliationStrategy: ReconciliationStrategy; memoryVariables: Record<string, string> }) =>
    sendJson<Migration>(api(`/template-versions/${segment(versionSlug)}/migrate`), { method: 'POST', json: body }),
  migrationRequirements: (versionSlug: string) =>
    sendJson<{ agents: number; missingMemoryVariables: Array<{ key: string; agents: number }> }>(api(`/template-versions/${segment(versionSlug)}/migration-requirements`)),
  migrations: (templateId: string) => sendJson<{ migrations: Migration[]; hasNextPage: boolean }>(api('/agent-templates/migrations'), { query: { templateId } }),
  abortMigration: (workflowId: string) => sendJson<Migration>(api(`/agent-templates/migrations/${segment(workflowId)}/abort`), { method: 'POST' }),

  blockTemplates: (query: { search?: string; offset: number; limit: number }) =>
    sendJson<{ blockTemplates: BlockTemplate[]; hasNextPage: boolean }>(api('/block-templates'), { query }),
  createBlockTemplate: (body: Partial<BlockTemplateFields>) => sendJson<BlockTemplate>(api('/block-templates'), { method: 'POST', json: body }),
  updateBlockTemplate: (blockTemplateId: string, body: Partial<BlockTemplateFields>) =>
    sendJson<BlockTemplate>(api(`/block-templates/${segment(blockTemplateId)}`), { method: 'PATCH', json: body }),
  deleteBlockTemplate: (blockTemplateId: string) => send(api(`/block-templates/${segment(blockTemplateId)}`), { method: 'DELETE' }),
  attachBlockTemplate: (templateId: string, blockTemplateId: string) =>
    send(api(`/agent-templates/${segment(templateId)}/block-templates/${segment(blockTemplateId)}`), { method: 'POST' }),
  detachBlockTemplate: (templateId: string, blockTemplateId: string) =>
    send(api(`/agent-templates/${segment(templateId)}/block-templates/${segment(blockTemplateId)}`), { method: 'DELETE' }),

  simulatedAgent: (templateId: string) => sendJson<SimulatedAgent>(api(`/agent-templates/${segment(templateId)}/simulated-agents/default`)),
  flushSimulatedAgent: (simulatedAgentId: string) => sendJson<SimulatedAgent>(api(`/simulated-agents/${segment(simulatedAgentId)}/flush`), { method: 'POST' }),
  refreshSimulatedAgent: (simulatedAgentId: string) => sendJson<SimulatedAgent>(api(`/simulated-agents/${segment(simulatedAgentId)}/refresh`), { method: 'POST' }),
  simulatedVariables: (simulatedAgentId: string) => sendJson<{ memoryVariables: Record<string, string> }>(api(`/simulated-agents/${segment(simulatedAgentId)}/variables`)),
  setSimulatedVariables: (simulatedAgentId: string, memoryVariables: Record<string, string>) =>
    sendJson<{ memoryVariables: Record<string, string> }>(api(`/simulated-agents/${segment(simulatedAgentId)}/variables`), {
      method: 'PUT',
      json: { memoryVariables },
    }),
};

/** `name:3`: how a version is addressed. */
export const versionSlug = (template: Pick<AgentTemplate, 'name'>, version: string) => `${template.name}:${version}`;
