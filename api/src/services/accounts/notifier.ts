import { randomUUID } from 'node:crypto';
import { OutboxMessage, type Database, type OutboxChannel } from '@engram/db';

export type Notification = { channel: OutboxChannel; recipient: string; subject: string; body: string };

/** Delivers codes and invitations to people. */
export type Notifier = { send(notification: Notification): Promise<void> };

/**
 * The default notifier records every notification in the `outbox` table, where the console and
 * tests read it and a mail or SMS relay can pick it up for delivery.
 */
export function createOutboxNotifier(deps: { db: Database }): Notifier {
  return {
    async send(notification) {
      await OutboxMessage.query(deps.db).insert({ id: randomUUID(), ...notification });
    },
  };
}
