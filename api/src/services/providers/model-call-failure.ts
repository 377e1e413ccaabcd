import { ModelCallError } from '@engram/integrations/llm';
import { modelCallError, type AppError } from '../../errors.js';

/** A model or embedding provider's failure, as an API client should see it (`MODEL_ERROR_KINDS`). */
export function modelCallFailure(error: ModelCallError): AppError {
  return modelCallError(error.kind, error.message);
}

/** Runs work that calls a provider (a model or an embedder), turning its failure into an HTTP error. */
export async function withProviderCalls<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof ModelCallError ? modelCallFailure(error) : error;
  }
}
