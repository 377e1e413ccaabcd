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

/** A semantically invalid field; rendered like a schema validation failure. */
export class UnprocessableError extends AppError {
  constructor(
    readonly loc: Array<string | number>,
    msg: string,
    readonly type = 'value_error',
  ) {
    super('unprocessable', msg);
  }
}

export class RateLimitedError extends AppError {
  constructor(detail: ErrorDetail = 'Too many requests') {
    super('rate_limited', detail);
  }
}

export class UpstreamError extends AppError {
  constructor(detail: ErrorDetail) {
    super('bad_gateway', detail);
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
