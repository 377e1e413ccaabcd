import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { PERMISSIONS } from '../../http/permissions.js';
import { RoleSchema } from './schemas.js';

/** How this deployment bills: whether tier limits and credits refuse anything (ENGRAM_BILLING), and whether cards can pay (Stripe). */
export type BillingSettings = { enforced: boolean; cardPayments: boolean };

/** Which search provider the web_search tool goes through (ENGRAM_WEB_SEARCH_PROVIDER and its key); null when none is configured. */
export type WebSearchSettings = { provider: 'exa' | 'tavily' | 'brave' | 'searxng' | null };

export type ConsoleSettingsOptions = { temporalUi: { url: string; namespace: string } | null; billing: BillingSettings; webSearch: WebSearchSettings };

const ConsoleSettings = z.object({
  temporalUi: z.object({ url: z.string(), namespace: z.string() }).nullable(),
  member: z.object({ role: RoleSchema, permissions: z.array(z.enum(PERMISSIONS)) }),
  billing: z.object({ enforced: z.boolean(), cardPayments: z.boolean() }),
  webSearch: z.object({
    provider: z
      .enum(['exa', 'tavily', 'brave', 'searxng'])
      .nullable()
      .describe("The web_search tool's provider; null when the operator configured none (the tool then answers the model an error naming the variables to set)."),
  }),
});

/**
 * What the console adapts to for the signed-in member: where runs are inspected in the Temporal Web UI, what the
 * member may do in the acting organization (so screens hide or disable what the API would refuse them), and how
 * this deployment bills (a self-hosted one enforces nothing and sells nothing), and whether web search is configured.
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
        webSearch: options.webSearch,
      }),
    );
  };
}
