import { TenantModel } from './base-model.js';

export type MessageSchedule = { type: 'one-time'; scheduled_at: number } | { type: 'recurring'; cron_expression: string };

export type ScheduledMessagePayload = {
  messages: Array<Record<string, unknown>>;
  callback_url?: string;
  include_return_message_types?: string[];
  max_steps?: number;
};

/** A message an agent receives on a schedule; its Temporal Schedule has the same id. */
export class ScheduledMessage extends TenantModel {
  static override tableName = 'scheduled_messages';
  static override jsonAttributes = ['schedule', 'message'];
  declare id: string;
  declare agentId: string;
  declare schedule: MessageSchedule;
  declare message: ScheduledMessagePayload;
}
