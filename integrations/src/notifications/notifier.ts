import { randomUUID } from 'node:crypto';
import { OutboxMessage, type Database, type OutboxChannel } from '@engram/db';

export type Notification = { channel: OutboxChannel; recipient: string; subject: string; body: string };

/**
 * How emails leave the server: `smtp`, handed to a mail server; `outbox`, not at all (no mail server
 * is configured), so they wait in the `outbox` table. The console says which, so it never claims a
 * code is on its way when none was sent.
 */
export type EmailDelivery = 'smtp' | 'outbox';

/** Delivers codes and invitations to people. */
export type Notifier = { readonly emailDelivery: EmailDelivery; send(notification: Notification): Promise<void> };

/**
 * The default notifier records every notification in the `outbox` table, where the console and
 * tests read it and a mail or SMS relay can pick it up for delivery.
 */
export function createOutboxNotifier(deps: { db: Database }): Notifier {
  return {
    emailDelivery: 'outbox',
    async send(notification) {
      await OutboxMessage.query(deps.db).insert({ id: randomUUID(), ...notification });
    },
  };
}
