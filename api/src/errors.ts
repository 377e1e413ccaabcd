import type { ModelErrorKind } from '@engram/core';

/**
 * The closed set of domain errors. Services throw these; `http/error-handler.ts` is the one place
 * that turns them into HTTP responses.
 */
export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'request_timeout'
  | 'internal'
  | 'bad_gateway'
  | 'service_unavailable'
  | 'timeout';

/** `detail` is what the client sees: a message, or an object such as `{code, message, ...}`. */
export type ErrorDetail = string | Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail: ErrorDetail,
  ) {
    super(typeof detail === 'string' ? detail : String(detail.message ?? kind));
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(detail: ErrorDetail) {
    super('bad_request', detail);
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail: ErrorDetail = 'Unauthorized') {
    super('unauthorized', detail);
  }
}

export class ForbiddenError extends AppError {
  constructor(detail: ErrorDetail = 'Forbidden') {
    super('forbidden', detail);
  }
}

export class NotFoundError extends AppError {
  /** `new NotFoundError('Agent')` → "Agent not found", as clients of the API expect. */
  constructor(resource: string) {
    super('not_found', `${resource} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(detail: ErrorDetail) {
    super('conflict', detail);
  }
}

export class GoneError extends AppError {
  constructor(detail: ErrorDetail) {
    super('gone', detail);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(detail: ErrorDetail) {
    super('payload_too_large', detail);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(detail: ErrorDetail) {
    super('unsupported_media_type', detail);
  }
}

export type UnprocessableIssue = { loc: Array<string | number>; msg: string; type: string };

/** A semantically invalid field; rendered like a schema validation failure. */
export class UnprocessableError extends AppError {
  constructor(
    readonly loc: Array<string | number>,
    msg: string,
    readonly type = 'value_error',
    /** Further problems of the same input (an uploaded document's), reported together with this one. */
    private readonly further: UnprocessableIssue[] = [],
  ) {
    super('unprocessable', msg);
  }

  get issues(): UnprocessableIssue[] {
    return [{ loc: this.loc, msg: this.message, type: this.type }, ...this.further];
  }
}

export class RateLimitedError extends AppError {
  /** `retryAfterSeconds` becomes the `Retry-After` header when the wait is known. */
  constructor(
    detail: ErrorDetail = 'Too many requests',
    readonly retryAfterSeconds?: number,
  ) {
    super('rate_limited', detail);
  }
}

export class UpstreamError extends AppError {
  constructor(detail: ErrorDetail) {
    super('bad_gateway', detail);
  }
}

/** A server called on the client's behalf (an MCP server) did not answer in time: 408, as the public API answers it. */
export class RequestTimeoutError extends AppError {
  constructor(detail: ErrorDetail) {
    super('request_timeout', detail);
  }
}

export class UpstreamTimeoutError extends AppError {
  constructor(detail: ErrorDetail) {
    super('timeout', detail);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: ErrorDetail) {
    super('service_unavailable', detail);
  }
}

/**
 * How a failed model or embedding call reaches an API client, by the failure's kind. Keyed by every
 * `ModelErrorKind`, so a new kind does not compile until it has its row here.
 */
export const MODEL_ERROR_KINDS: Record<ModelErrorKind, ErrorKind> = {
  not_configured: 'bad_request',
  bad_request: 'bad_request',
  context_overflow: 'bad_request',
  authentication: 'unauthorized',
  rate_limit: 'rate_limited',
  timeout: 'timeout',
  server: 'bad_gateway',
  connection: 'bad_gateway',
  invalid_response: 'bad_gateway',
};

/** The `error_type`s a run fails with when no model call failed: its own refusals and the catch-all. */
export const RUN_FAILURE_KINDS = {
  PENDING_APPROVAL: 'conflict',
  invalid_request: 'bad_request',
  // A group turn that could not start: its group was deleted or emptied meanwhile.
  invalid_group: 'conflict',
  internal_error: 'internal',
} as const satisfies Record<string, ErrorKind>;

/** The error for a failed model or embedding call. */
export function modelCallError(kind: ModelErrorKind, message: string): AppError {
  return new AppError(MODEL_ERROR_KINDS[kind], message);
}

/**
 * The error for a run that ended without an answer (a sync send), from its error message: a model error kind or
 * one of `RUN_FAILURE_KINDS`; a conflict carries its code (`PENDING_APPROVAL`), as clients resolve it by that.
 */
export function runFailureError(failure: { error_type: string; message: string }): AppError {
  const type = failure.error_type;
  const kind: ErrorKind = Object.hasOwn(MODEL_ERROR_KINDS, type)
    ? MODEL_ERROR_KINDS[type as ModelErrorKind]
    : Object.hasOwn(RUN_FAILURE_KINDS, type)
      ? RUN_FAILURE_KINDS[type as keyof typeof RUN_FAILURE_KINDS]
      : 'internal';
  return new AppError(kind, kind === 'conflict' ? { code: type, message: failure.message } : failure.message);
}

/**
 * A console API (`/api`) error carrying one of the spec's `errorCode` values, rendered
 * `{message, errorCode, ...extra}` (e.g. `tooEarly` adds `nextResendTime`).
 */
export class ConsoleError extends AppError {
  constructor(
    kind: ErrorKind,
    readonly errorCode: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(kind, message);
  }
}

/** The spec's console errors are mostly `400 {errorCode}`. */
export const badRequest = (errorCode: string, message: string, extra?: Record<string, unknown>) =>
  new ConsoleError('bad_request', errorCode, message, extra);

/**
 * A tier limit or the credit balance refuses the request (spec 000 §8, 001 §8): on the console API a 400 with
 * the spec's code (`usageLimit`, `maxUsage`, …) and the limit; on `/v1` a 402 `{message, limit}`. A per-minute
 * rate (files per minute) says when to try again: 429 with `Retry-After` on both.
 */
export class TierLimitError extends ConsoleError {
  constructor(
    errorCode: string,
    message: string,
    readonly limit: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(retryAfterSeconds === undefined ? 'bad_request' : 'rate_limited', errorCode, message, {
      limit,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
}
