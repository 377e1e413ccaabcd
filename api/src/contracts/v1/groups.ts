import { z } from 'zod';
import { GROUP_MANAGER_TYPES } from '@engram/db';
import { pageQuery } from '../shared/paging.js';
import { queryBoolean } from '../shared/query.js';

export const ManagerType = z.enum(GROUP_MANAGER_TYPES);

/** The manager types a group can be created with here; the others are refused with a 422 that names these. */
export const SUPPORTED_MANAGER_TYPES = ['round_robin', 'supervisor', 'dynamic', 'sleeptime'] as const;

/**
 * The group's manager settings, discriminated on `manager_type` as the reference's `ManagerConfig` union is.
 * The unsupported types are accepted by the schema so the service can refuse them by name.
 */
export const ManagerConfig = z.discriminatedUnion('manager_type', [
  z.strictObject({ manager_type: z.literal('round_robin'), max_turns: z.number().int().min(1).max(100).nullish() }),
  z.strictObject({ manager_type: z.literal('supervisor'), manager_agent_id: z.string() }),
  z.strictObject({
    manager_type: z.literal('dynamic'),
    manager_agent_id: z.string(),
    termination_token: z.string().min(1).nullish(),
    max_turns: z.number().int().min(1).max(100).nullish(),
  }),
  z.strictObject({
    manager_type: z.literal('sleeptime'),
    manager_agent_id: z.string(),
    sleeptime_agent_frequency: z.number().int().min(1).nullish(),
  }),
  z.strictObject({
    manager_type: z.literal('voice_sleeptime'),
    manager_agent_id: z.string(),
    max_message_buffer_length: z.number().int().nullish(),
    min_message_buffer_length: z.number().int().nullish(),
  }),
  z.strictObject({ manager_type: z.literal('swarm') }),
]);

export type ManagerConfigInput = z.infer<typeof ManagerConfig>;

/** On update every setting is optional; the type may change too. */
export const ManagerConfigUpdate = z.discriminatedUnion('manager_type', [
  z.strictObject({ manager_type: z.literal('round_robin'), max_turns: z.number().int().min(1).max(100).nullish() }),
  z.strictObject({ manager_type: z.literal('supervisor'), manager_agent_id: z.string().nullish() }),
  z.strictObject({
    manager_type: z.literal('dynamic'),
    manager_agent_id: z.string().nullish(),
    termination_token: z.string().min(1).nullish(),
    max_turns: z.number().int().min(1).max(100).nullish(),
  }),
  z.strictObject({
    manager_type: z.literal('sleeptime'),
    manager_agent_id: z.string().nullish(),
    sleeptime_agent_frequency: z.number().int().min(1).nullish(),
  }),
  z.strictObject({
    manager_type: z.literal('voice_sleeptime'),
    manager_agent_id: z.string().nullish(),
    max_message_buffer_length: z.number().int().nullish(),
    min_message_buffer_length: z.number().int().nullish(),
  }),
  z.strictObject({ manager_type: z.literal('swarm') }),
]);

export type ManagerConfigUpdateInput = z.infer<typeof ManagerConfigUpdate>;

export const CreateGroupBody = z.strictObject({
  agent_ids: z.array(z.string()).max(100),
  description: z.string(),
  manager_config: ManagerConfig.default({ manager_type: 'round_robin' }),
  project_id: z.string().nullish(),
  shared_block_ids: z.array(z.string()).max(100).nullish(),
  hidden: z.boolean().nullish(),
});

export type CreateGroupInput = z.infer<typeof CreateGroupBody>;

export const UpdateGroupBody = z.strictObject({
  agent_ids: z.array(z.string()).max(100).nullish(),
  description: z.string().nullish(),
  manager_config: ManagerConfigUpdate.nullish(),
  project_id: z.string().nullish(),
  shared_block_ids: z.array(z.string()).max(100).nullish(),
  hidden: z.boolean().nullish(),
});

export type UpdateGroupInput = z.infer<typeof UpdateGroupBody>;

/** The wire `Group` (the client's `AgentState.ManagedGroup`). */
export const GroupResponse = z
  .object({
    id: z.string(),
    manager_type: ManagerType,
    agent_ids: z.array(z.string()),
    description: z.string(),
    project_id: z.string().nullable(),
    template_id: z.string().nullable(),
    base_template_id: z.string().nullable(),
    deployment_id: z.string().nullable(),
    shared_block_ids: z.array(z.string()),
    manager_agent_id: z.string().nullable(),
    termination_token: z.string().nullable(),
    max_turns: z.number().int().nullable(),
    sleeptime_agent_frequency: z.number().int().nullable(),
    turns_counter: z.number().int().nullable(),
    last_processed_message_id: z.string().nullable(),
    max_message_buffer_length: z.number().int().nullable(),
    min_message_buffer_length: z.number().int().nullable(),
    hidden: z.boolean().nullable(),
  })
  .meta({ id: 'Group' });

export type GroupWire = z.infer<typeof GroupResponse>;

export const GroupParams = z.object({ group_id: z.string() });

export const ListGroupsQuery = z.object({
  manager_type: ManagerType.optional(),
  project_id: z.string().optional(),
  ...pageQuery(50),
});

/** How stored messages are read back as LettaMessages (the deprecated assistant-message options). */
export const assistantMessageQuery = {
  use_assistant_message: queryBoolean.default(true),
  assistant_message_tool_name: z.string().default('send_message'),
  assistant_message_tool_kwarg: z.string().default('message'),
};

export const ListGroupMessagesQuery = z.object({
  ...pageQuery(10),
  order_by: z.enum(['created_at']).optional(),
  ...assistantMessageQuery,
});

export const ResetGroupMessagesBody = z.strictObject({ add_default_initial_messages: z.boolean().optional() }).nullish();

