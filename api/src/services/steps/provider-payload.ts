import { buildProviderPayload, type ModelRequest } from '@engram/core';

/** The exact JSON body a provider receives for a model request: the one the worker's client for its wire protocol sends. */
export function providerPayload(request: ModelRequest): Record<string, unknown> {
  return buildProviderPayload(request);
}
