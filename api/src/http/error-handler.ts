import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, ConsoleError, RateLimitedError, TierLimitError, UnprocessableError, type ErrorKind } from '../errors.js';

/** The one table from domain error kinds to HTTP statuses. */
export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  request_timeout: 408,
  internal: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  timeout: 504,
};

export type ValidationIssue = { loc: Array<string | number>; msg: string; type: string };

const LOCATION_BY_CONTEXT: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function pathSegments(instancePath: string): Array<string | number> {
  return instancePath
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

function validationIssues(error: FastifyError & { validationContext?: string }): ValidationIssue[] {
  const where = LOCATION_BY_CONTEXT[error.validationContext ?? 'body'] ?? 'body';
  if (hasZodFastifySchemaValidationErrors(error)) {
    return error.validation.map((issue) => ({
      loc: [where, ...pathSegments(issue.instancePath)],
      msg: issue.message ?? 'Invalid value',
      type: issue.keyword,
    }));
  }
  return [{ loc: [where], msg: error.message, type: 'value_error' }];
}

function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** The console API (spec 000, "api base" `/api`) speaks `{message, errorCode}` instead of `{detail}`. */
function isConsoleRequest(request: FastifyRequest): boolean {
  return request.url === '/api' || request.url.startsWith('/api/') || request.url.startsWith('/api?');
}

/** Console codes for errors that carry none of their own. */
const CONSOLE_ERROR_CODE_BY_KIND: Partial<Record<ErrorKind, string>> = {
  unauthorized: 'unauthenticated',
  forbidden: 'noPermission',
  rate_limited: 'tooManyRequests',
};

function sendConsoleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ConsoleError) {
    if (typeof error.extra.retryAfterSeconds === 'number') reply.header('retry-after', String(error.extra.retryAfterSeconds));
    return send(reply, STATUS_BY_KIND[error.kind], { message: error.message, errorCode: error.errorCode, ...error.extra });
  }
  if (error instanceof UnprocessableError || error.validation) {
    const issues = error instanceof UnprocessableError ? error.issues : validationIssues(error);
    return send(reply, 400, { message: issues[0]?.msg ?? 'Invalid request', errorCode: 'validation', issues });
  }
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
    return send(reply, 400, { message: 'Request body is not valid JSON', errorCode: 'validation' });
  }
  const status = error instanceof AppError ? STATUS_BY_KIND[error.kind] : (error.statusCode ?? 500);
  if (status >= 500) request.log.error({ err: error }, 'console request failed');
  if (status >= 500 && !(error instanceof AppError && error.kind !== 'internal')) {
    return send(reply, 500, { message: 'An unknown error occurred', request_id: request.id });
  }
  const errorCode = error instanceof AppError ? CONSOLE_ERROR_CODE_BY_KIND[error.kind] : undefined;
  return send(reply, status, errorCode ? { message: error.message, errorCode } : { message: error.message });
}

/**
 * PostgreSQL data exceptions (SQLSTATE class 22) that only the input can cause, such as text longer than its
 * column: the caller's mistake, answered 422, never a 500. The database does not name the field.
 */
const INPUT_SQLSTATE_MESSAGES: Record<string, string> = {
  '22001': 'A value is longer than its field allows',
  '22003': 'A number is out of range for its field',
  '22021': 'Text contains a character that cannot be stored',
  '22P05': 'Text contains a character that cannot be stored',
};

function asInputError(error: FastifyError): FastifyError | UnprocessableError {
  // Objection wraps the driver's error (`DataError`), which keeps the SQLSTATE on `nativeError`.
  const { code, nativeError } = error as { code?: unknown; nativeError?: { code?: unknown } };
  const sqlState = nativeError?.code ?? code;
  const message = typeof sqlState === 'string' ? INPUT_SQLSTATE_MESSAGES[sqlState] : undefined;
  return message ? new UnprocessableError(['body'], message, 'value_error') : error;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((raised: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const error = asInputError(raised) as FastifyError;
    if (error instanceof RateLimitedError && error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    if (isConsoleRequest(request)) return sendConsoleError(error, request, reply);
    if (error instanceof TierLimitError) {
      if (error.retryAfterSeconds === undefined) return send(reply, 402, { message: error.message, limit: error.limit });
      reply.header('retry-after', String(error.retryAfterSeconds));
      return send(reply, 429, { message: error.message, limit: error.limit });
    }
    if (error instanceof UnprocessableError) {
      return send(reply, 422, { detail: error.issues });
    }
    if (error instanceof AppError) {
      const status = STATUS_BY_KIND[error.kind];
      if (status >= 500) request.log.error({ err: error }, 'request failed');
      return send(reply, status, { detail: status >= 500 && error.kind === 'internal' ? 'An unknown error occurred' : error.detail });
    }
    if (error.validation) {
      return send(reply, 422, { detail: validationIssues(error) });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return send(reply, 415, { detail: `Unsupported media type: ${request.headers['content-type'] ?? 'none'}` });
    }
    if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
      return send(reply, 422, { detail: [{ loc: ['body'], msg: 'Request body is not valid JSON', type: 'json_invalid' }] });
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return send(reply, 413, { detail: 'Request body is too large' });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error');
      return send(reply, 500, { detail: 'An unknown error occurred', request_id: request.id });
    }
    return send(reply, status, { detail: error.message });
  });

  app.setNotFoundHandler((request, reply) => {
    const what = `Not Found: ${request.method} ${request.url.split('?')[0]}`;
    return send(reply, 404, isConsoleRequest(request) ? { message: what } : { detail: what });
  });
}
