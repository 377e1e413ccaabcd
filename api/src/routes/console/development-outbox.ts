import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OutboxMessage } from '@engram/db';
import { requireAccount } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { iso } from './schemas.js';

const OutboxMessageSchema = z.object({
  id: z.string(),
  channel: z.enum(['email', 'sms']),
  recipient: z.string(),
  subject: z.string(),
  body: z.string(),
  createdAt: z.string(),
});

const wire = (message: OutboxMessage): z.infer<typeof OutboxMessageSchema> => ({
  id: message.id,
  channel: message.channel,
  recipient: message.recipient,
  subject: message.subject,
  body: message.body,
  createdAt: iso(message.createdAt),
});

/**
 * Development only (`exposeDevelopmentOutbox`): the newest notifications addressed to the signed-in
 * user's own email or phone number, so the console can show a verification code without a mail relay.
 */
export function developmentOutboxRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/development/outbox',
      {
        schema: {
          tags: ['console: development'],
          summary: "The newest codes and invitations sent to the signed-in user's email or phone (development only)",
          querystring: z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) }),
          response: { 200: z.object({ messages: z.array(OutboxMessageSchema) }) },
        },
      },
      async (request) => {
        const messages = await services.accounts.recentNotifications(requireAccount(request).userId, request.query.limit);
        return { messages: messages.map(wire) };
      },
    );
  };
}
