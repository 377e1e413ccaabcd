import { createTransport, type Transporter } from 'nodemailer';
import { OutboxMessage, type Database } from '@engram/db';
import { randomUUID } from 'node:crypto';
import type { Notifier } from './notifier.js';

export type SmtpNotifierDeps = {
  db: Database;
  /** `smtp://user:password@host:port` or `smtps://…`, as nodemailer reads it. */
  smtpUrl: string;
  from: string;
  /** Where a failed delivery is reported; the notification itself stays in the outbox for a relay or a resend. */
  onDeliveryFailure: (error: unknown, notification: { recipient: string; subject: string }) => void;
  /** Test seam: a prepared transport instead of one built from `smtpUrl`. */
  transport?: Transporter;
};

/**
 * Records every notification in the outbox like the default notifier, then delivers emails over SMTP
 * at once and marks them delivered. A mail server that is down must not fail the sign-up or reset that
 * sent the code, so a failed delivery is reported and left undelivered in the outbox. SMS has no
 * provider yet and stays in the outbox.
 */
export function createSmtpNotifier(deps: SmtpNotifierDeps): Notifier {
  const transport = deps.transport ?? createTransport(deps.smtpUrl);
  return {
    emailDelivery: 'smtp',
    async send(notification) {
      const id = randomUUID();
      await OutboxMessage.query(deps.db).insert({ id, ...notification });
      if (notification.channel !== 'email') return;
      try {
        await transport.sendMail({ from: deps.from, to: notification.recipient, subject: notification.subject, text: notification.body });
        await OutboxMessage.query(deps.db).findById(id).patch({ deliveredAt: new Date() });
      } catch (error) {
        deps.onDeliveryFailure(error, notification);
      }
    },
  };
}
