import type { Wire } from '@engram/console-kit';
import { keysetQuery, segment, v1Json, type KeysetPage } from '../v1-request.js';

/** A wire `Group`: agents that answer one conversation together, in the order its manager type sets. */
export type AgentGroup = Wire.Group;

export type ManagerType = 'round_robin' | 'supervisor' | 'dynamic' | 'sleeptime';

/** The manager types a group can be created with, and what each does, in the words the screens use. */
export const MANAGER_TYPES: Array<{ value: ManagerType; label: string; description: string }> = [
  { value: 'round_robin', label: 'Round robin', description: 'Members answer in turn, each seeing the conversation so far.' },
  { value: 'supervisor', label: 'Supervisor', description: 'A manager agent delegates to every member and answers.' },
  { value: 'dynamic', label: 'Dynamic', description: 'A manager agent picks who speaks next until the termination token.' },
  { value: 'sleeptime', label: 'Sleep-time', description: 'A primary agent answers; sleep-time members tend its memory in the background.' },
];

export const managerTypeLabel = (type: string) => MANAGER_TYPES.find((option) => option.value === type)?.label ?? type;

export type NewGroup = { description: string; agent_ids: string[]; project_id: string; manager_config: { manager_type: ManagerType; manager_agent_id?: string } };

const groupPath = (groupId: string, suffix = '') => `/groups/${segment(groupId)}${suffix}`;

export function listGroups(projectId: string, page: KeysetPage) {
  return v1Json<AgentGroup[]>('/groups/', { query: { project_id: projectId, ...keysetQuery(page) } });
}

export function getGroup(groupId: string) {
  return v1Json<AgentGroup>(groupPath(groupId));
}

export function createGroup(group: NewGroup) {
  return v1Json<AgentGroup>('/groups/', { method: 'POST', json: group });
}

/** Deletes the group; its members and their histories stay. */
export function deleteGroup(groupId: string) {
  return v1Json<{ message: string }>(groupPath(groupId), { method: 'DELETE' });
}

/** The group's conversation, oldest first: each thing said once, with who said it (`name`, `sender_id`). */
export function listGroupMessages(groupId: string) {
  return v1Json<Wire.LettaMessage[]>(groupPath(groupId, '/messages'), { query: { limit: 100, order: 'desc' } });
}

/** One turn of the group: its members answer in order; resolves with what they said once the turn ends. */
export function sendGroupMessage(groupId: string, text: string) {
  return v1Json<Wire.LettaResponse>(groupPath(groupId, '/messages'), { method: 'POST', json: { messages: [{ role: 'user', content: text }] } });
}
