/** An HTTP error from `/api` (`{message, errorCode}`) or `/v1` (`{detail}`), with the server's own message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The console API's `errorCode` (e.g. `invalidPassword`), or the `/v1` detail's `code`. */
    readonly errorCode: string | undefined,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Issue = { loc?: unknown[]; msg?: string };

function detailMessage(detail: unknown): { message?: string; code?: string } {
  if (typeof detail === 'string') return { message: detail };
  if (Array.isArray(detail)) {
    const first = detail[0] as Issue | undefined;
    if (!first?.msg) return {};
    const where = Array.isArray(first.loc) ? first.loc.filter((part) => part !== 'body').join('.') : '';
    return { message: where ? `${where}: ${first.msg}` : first.msg, code: 'validation' };
  }
  if (detail && typeof detail === 'object') {
    const record = detail as { message?: unknown; code?: unknown };
    return {
      message: typeof record.message === 'string' ? record.message : undefined,
      code: typeof record.code === 'string' ? record.code : undefined,
    };
  }
  return {};
}

/** Reads the error body of a failed response, whichever API it came from. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page): keep the text.
  }
  let message: string | undefined;
  let code: string | undefined;
  if (body && typeof body === 'object') {
    const record = body as { message?: unknown; errorCode?: unknown; detail?: unknown; error?: unknown };
    if (typeof record.message === 'string') message = record.message;
    if (typeof record.errorCode === 'string') code = record.errorCode;
    if (record.detail !== undefined) ({ message = message, code = code } = detailMessage(record.detail));
  }
  return new ApiError(response.status, message ?? (response.statusText || `Request failed (${response.status})`), code, body);
}

/** The console API's codes for a refusal by the organization's tier limits (spec 000 §8). */
const TIER_LIMIT_CODES = new Set(['usageLimit', 'maxUsage', 'projectLimitReached', 'organizationMemberLimitReached']);

/**
 * The tier limit that refused a request, or null for any other failure: the console API's tier-limit codes, and
 * `/v1`'s 402 `{message, limit}` (spec 001 §8). `limit` is the plan's allowance the request would have exceeded.
 */
export function tierLimitOf(error: unknown): { message: string; limit: number | null } | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status !== 402 && !(error.errorCode && TIER_LIMIT_CODES.has(error.errorCode))) return null;
  const limit = (error.body as { limit?: unknown } | null)?.limit;
  return { message: error.message, limit: typeof limit === 'number' ? limit : null };
}

/** A message fit for the user, for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
