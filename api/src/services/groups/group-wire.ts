import type { GroupWire } from '../../contracts/v1/groups.js';
import type { GroupView } from './types.js';

/** The wire `Group`. */
export function groupToWire({ group, agentIds, sharedBlockIds }: GroupView): GroupWire {
  return {
    id: group.id,
    manager_type: group.managerType,
    agent_ids: agentIds,
    description: group.description,
    project_id: group.projectId,
    template_id: group.templateId,
    base_template_id: group.baseTemplateId,
    deployment_id: group.deploymentId,
    shared_block_ids: sharedBlockIds,
    manager_agent_id: group.managerAgentId,
    termination_token: group.terminationToken,
    max_turns: group.maxTurns,
    sleeptime_agent_frequency: group.sleeptimeAgentFrequency,
    turns_counter: group.turnsCounter,
    last_processed_message_id: group.lastProcessedMessageId,
    max_message_buffer_length: group.maxMessageBufferLength,
    min_message_buffer_length: group.minMessageBufferLength,
    hidden: group.hidden,
  };
}
