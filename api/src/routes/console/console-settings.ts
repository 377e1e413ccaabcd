import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { PERMISSIONS } from '../../http/permissions.js';
import { RoleSchema } from './schemas.js';

/** How this deployment bills: whether tier limits and credits refuse anything (ENGRAM_BILLING), and whether cards can pay (Stripe). */
export type BillingSettings = { enforced: boolean; cardPayments: boolean };

export type ConsoleSettingsOptions = { temporalUi: { url: string; namespace: string } | null; billing: BillingSettings };

const ConsoleSettings = z.object({
  temporalUi: z.object({ url: z.string(), namespace: z.string() }).nullable(),
  member: z.object({ role: RoleSchema, permissions: z.array(z.enum(PERMISSIONS)) }),
  billing: z.object({ enforced: z.boolean(), cardPayments: z.boolean() }),
});

/**
 * What the console adapts to for the signed-in member: where runs are inspected in the Temporal Web UI, what the
 * member may do in the acting organization (so screens hide or disable what the API would refuse them), and how
 * this deployment bills (a self-hosted one enforces nothing and sells nothing).
 */
export function consoleSettingsRoutes(options: ConsoleSettingsOptions): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/console-settings',
      { schema: { tags: ['console: preferences'], response: { 200: ConsoleSettings } } },
      async (request) => ({
        temporalUi: options.temporalUi,
        member: { role: requireContext(request).role, permissions: [...(request.access?.permissions ?? [])].sort() },
        billing: options.billing,
      }),
    );
  };
}
