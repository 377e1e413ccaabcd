import * as AnthropicSdk from '@anthropic-ai/sdk';
import * as OpenAiSdk from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyProviderError, ModelCallError } from './errors.js';

function networkError(code: string): Error {
  const cause = Object.assign(new Error(`connect ${code} 10.0.0.1:443`), { code });
  return new TypeError('fetch failed', { cause });
}

describe('classifyProviderError', () => {
  it('classifies 408 and SDK timeouts as timeouts', () => {
    const requestTimeout = OpenAiSdk.APIError.generate(408, { message: 'Request timed out' }, undefined, new Headers());
    expect(classifyProviderError(requestTimeout)).toMatchObject({ kind: 'timeout', status: 408 });
    expect(classifyProviderError(new OpenAiSdk.APIConnectionTimeoutError()).kind).toBe('timeout');
    expect(classifyProviderError(new AnthropicSdk.APIConnectionTimeoutError()).kind).toBe('timeout');
  });

  it('classifies an abort by AbortSignal.timeout as a timeout', () => {
    expect(classifyProviderError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')).kind).toBe('timeout');
  });

  it('classifies network failures below the SDK by their system code', () => {
    expect(classifyProviderError(networkError('ECONNREFUSED'))).toMatchObject({ kind: 'connection' });
    expect(classifyProviderError(networkError('ECONNREFUSED')).message).toContain('ECONNREFUSED 10.0.0.1:443');
    expect(classifyProviderError(networkError('ETIMEDOUT')).kind).toBe('timeout');
  });

  it('classifies a 403 as authentication and a 404 as a bad request', () => {
    expect(classifyProviderError(OpenAiSdk.APIError.generate(403, { message: 'Forbidden' }, undefined, new Headers())).kind).toBe('authentication');
    const notFound = OpenAiSdk.APIError.generate(404, { error: { message: 'The model `gpt-9` does not exist' } }, undefined, new Headers());
    expect(classifyProviderError(notFound)).toMatchObject({ kind: 'bad_request', status: 404 });
    expect(classifyProviderError(notFound).message).toContain('The model `gpt-9` does not exist');
  });

  it('recognises context overflow by its error code', () => {
    const error = OpenAiSdk.APIError.generate(
      400,
      { error: { message: 'Input too large', code: 'context_length_exceeded' } },
      undefined,
      new Headers(),
    );
    expect(classifyProviderError(error).kind).toBe('context_overflow');
  });

  it('classifies a body that is not JSON as an invalid response', () => {
    const error = classifyProviderError(new SyntaxError('Unexpected end of JSON input'));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('Unexpected end of JSON input');
  });

  it('leaves an already classified error as it is', () => {
    const error = new ModelCallError('not_configured', 'No provider');
    expect(classifyProviderError(error)).toBe(error);
  });
});
