/** Card payments through Stripe; null when STRIPE_SECRET_KEY is unset (card operations then answer one clear error). */
export type PaymentsConfig = { secretKey: string; apiBase: URL | null } | null;

export class PaymentsConfigError extends Error {}

/** Parsed once by each process's entry point (the API server and the worker, which charges auto top-ups). */
export function parsePaymentsConfig(env: NodeJS.ProcessEnv): PaymentsConfig {
  const secretKey = env.STRIPE_SECRET_KEY || undefined;
  const apiBase = env.STRIPE_API_BASE || undefined;
  if (apiBase !== undefined && !/^https?:\/\/[^/]+\/?$/.test(apiBase)) {
    throw new PaymentsConfigError('STRIPE_API_BASE: must be an http:// or https:// origin, like http://127.0.0.1:12111');
  }
  if (!secretKey) {
    if (apiBase) throw new PaymentsConfigError('STRIPE_API_BASE: set STRIPE_SECRET_KEY as well, or neither');
    return null;
  }
  if (!/^(sk|rk)_(test|live)_\S+$/.test(secretKey)) {
    throw new PaymentsConfigError('STRIPE_SECRET_KEY: must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_…)');
  }
  return { secretKey, apiBase: apiBase ? new URL(apiBase) : null };
}
