import { z } from 'zod';
import { ROLES } from '../../http/permissions.js';

/** Console lists page by offset; spec 000 §9 caps a page at 100. */
export const PageQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  search: z.string().optional(),
});

export const Success = z.object({ success: z.boolean() });

export const success = { success: true } as const;

export const RoleSchema = z.enum(ROLES);

/** On answers that send an email: `smtp` when it went to a mail server, `outbox` when none is configured and it waits in the outbox. */
export const EmailDeliverySchema = z.enum(['smtp', 'outbox']);

export const iso = (date: Date) => date.toISOString();
