import { ModelCallError } from '@engram/integrations/llm';
import { BadRequestError, RateLimitedError, UnauthorizedError, UpstreamError, UpstreamTimeoutError, type AppError } from '../../errors.js';

/** A model or embedding provider's failure, as an API client should see it. */
export function modelCallFailure(error: ModelCallError): AppError {
  switch (error.kind) {
    case 'not_configured':
    case 'bad_request':
    case 'context_overflow':
      return new BadRequestError(error.message);
    case 'authentication':
      return new UnauthorizedError(error.message);
    case 'rate_limit':
      return new RateLimitedError(error.message);
    case 'timeout':
      return new UpstreamTimeoutError(error.message);
    default:
      return new UpstreamError(error.message);
  }
}

/** Runs work that calls a provider (a model or an embedder), turning its failure into an HTTP error. */
export async function withProviderCalls<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof ModelCallError ? modelCallFailure(error) : error;
  }
}
