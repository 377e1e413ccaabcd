import { z } from 'zod';

/**
 * `{"detail": …}`, what `http/error-handler.ts` answers for a domain error: a message, or an object such as
 * `{code, message}` for the errors that carry one.
 */
export const ErrorResponse = z.object({ detail: z.union([z.string(), z.record(z.string(), z.unknown())]) }).meta({ id: 'ErrorResponse' });

export const ValidationIssue = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});

/** The 422 of a request the schemas refuse (or a field a service finds invalid), as the reference server words it. */
export const ValidationErrorResponse = z.object({ detail: z.array(ValidationIssue) }).meta({ id: 'ValidationErrorResponse' });

const ERROR_SCHEMAS = { 400: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse, 422: ValidationErrorResponse } as const;

type DeclaredError = keyof typeof ERROR_SCHEMAS;

/** The error responses a route declares beside its success: `response: { 200: Block, ...errorResponses(404, 422) }`. */
export function errorResponses<const Status extends DeclaredError>(...statuses: Status[]): { [S in Status]: (typeof ERROR_SCHEMAS)[S] } {
  return Object.fromEntries(statuses.map((status) => [status, ERROR_SCHEMAS[status]])) as { [S in Status]: (typeof ERROR_SCHEMAS)[S] };
}
