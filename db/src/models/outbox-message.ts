import { BaseModel } from './base-model.js';

export type OutboxChannel = 'email' | 'sms';

/** A notification waiting for (or past) delivery; the default notifier only writes here. */
export class OutboxMessage extends BaseModel {
  static override tableName = 'outbox';
  declare id: string;
  declare channel: OutboxChannel;
  declare recipient: string;
  declare subject: string;
  declare body: string;
  declare deliveredAt: Date | null;
}
