import * as AnthropicSdk from '@anthropic-ai/sdk';
import { BedrockRuntimeServiceException as AwsServiceException } from '@aws-sdk/client-bedrock-runtime';
import type { ModelErrorKind } from '@engram/core';
import { ApiError as GoogleApiError } from '@google/genai';
import * as OpenAiSdk from 'openai';
import { egressRefusalOf } from '../egress/index.js';

/**
 * A failed model call, classified so retries and the run's stop reason can follow from `kind`; `retryAfterMs` is
 * how long the provider asked to wait before trying again (a rate limit's or an overload's hint).
 */
export class ModelCallError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ModelCallError';
  }
}

/** The wait a response's `retry-after-ms` or `retry-after` (seconds or an HTTP date) asks for. */
export function retryHintOf(headers: { get(name: string): string | null } | undefined | null, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const retryAfter = headers.get('retry-after')?.trim();
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Google's `RetryInfo` detail (`"retryDelay": "7s"`) in an error body. */
function googleRetryDelayMs(body: string): number | undefined {
  const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(body);
  return match ? Math.ceil(Number(match[1]) * 1000) : undefined;
}

/** The readable part of a Google error body: `{"error":{"message":…}}`. */
function googleErrorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message : body;
  } catch {
    return body;
  }
}

const CONTEXT_OVERFLOW_WORDING =
  /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|input is too long|reduce the length/i;
const RATE_LIMIT_WORDING = /rate[ _-]?limit|too many requests/i;
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_SOCKET']);

type SdkApiError = { status: number | undefined; message: string; code?: string | null | undefined; cause?: unknown };

function isSdkApiError(error: unknown): error is SdkApiError {
  return error instanceof OpenAiSdk.APIError || error instanceof AnthropicSdk.APIError;
}

/** The system error code (ECONNREFUSED, …) of an error or of the errors that caused it. */
function networkCode(error: unknown): string | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (TIMEOUT_CODES.has(code) || CONNECTION_CODES.has(code))) return code;
  }
  return null;
}

/** The deepest message in an error's cause chain: what the network layer itself said. */
function rootMessage(error: Error): string {
  let current: Error = error;
  while (current.cause instanceof Error) current = current.cause;
  return current === error ? error.message : `${error.message} (${current.message})`;
}

function classifyStatus(status: number, error: { message: string; code?: string | null | undefined }, retryAfterMs?: number): ModelCallError {
  const message = error.message;
  if (status === 429) return new ModelCallError('rate_limit', message, status, retryAfterMs);
  if (status === 408) return new ModelCallError('timeout', message, status, retryAfterMs);
  if (status === 401 || status === 403) return new ModelCallError('authentication', message, status);
  if (status >= 500) return new ModelCallError('server', message, status, retryAfterMs);
  if (error.code === 'context_length_exceeded' || CONTEXT_OVERFLOW_WORDING.test(message)) {
    return new ModelCallError('context_overflow', message, status);
  }
  return new ModelCallError('bad_request', message, status);
}

/** Bedrock names its errors; throttling and overload are retryable whatever the status says. */
const AWS_RETRYABLE = new Set(['ThrottlingException', 'ServiceQuotaExceededException', 'ModelNotReadyException', 'ServiceUnavailableException', 'InternalServerException', 'ModelStreamErrorException']);
const AWS_AUTHENTICATION = new Set(['AccessDeniedException', 'UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException']);

function classifyAwsError(error: AwsServiceException): ModelCallError {
  const status = error.$metadata.httpStatusCode;
  const message = `${error.name}: ${error.message}`;
  const retryAfterMs = retryHintOf(awsResponseHeaders(error));
  if (error.name === 'ThrottlingException' || error.name === 'ServiceQuotaExceededException') {
    return new ModelCallError('rate_limit', message, status, retryAfterMs);
  }
  if (AWS_RETRYABLE.has(error.name)) return new ModelCallError('server', message, status, retryAfterMs);
  if (AWS_AUTHENTICATION.has(error.name)) return new ModelCallError('authentication', message, status);
  if (status !== undefined) return classifyStatus(status, { message }, retryAfterMs);
  return new ModelCallError('server', message);
}

/** The raw response's headers an AWS SDK error keeps (`$response`), when it kept them. */
function awsResponseHeaders(error: AwsServiceException): Headers | undefined {
  const response = (error as { $response?: { headers?: Record<string, string> } }).$response;
  return response?.headers ? new Headers(response.headers) : undefined;
}

/** An error event inside an otherwise successful stream: no HTTP status, only the provider's words. */
function classifyStreamedError(error: SdkApiError): ModelCallError {
  if (error.code === 'context_length_exceeded' || CONTEXT_OVERFLOW_WORDING.test(error.message)) {
    return new ModelCallError('context_overflow', error.message);
  }
  if (RATE_LIMIT_WORDING.test(error.message)) return new ModelCallError('rate_limit', error.message);
  return new ModelCallError('server', error.message);
}

/** Maps whatever a provider SDK (OpenAI, Anthropic, Google Gen AI, AWS) or the network below it threw to a classified error. */
export function classifyProviderError(error: unknown): ModelCallError {
  if (error instanceof ModelCallError) return error;
  // A provider address the egress policy refuses: its configuration is what must change, so it is never retried.
  const refusal = egressRefusalOf(error);
  if (refusal) return new ModelCallError('not_configured', `The model provider cannot be reached from this server. ${refusal.message}`);
  if (error instanceof OpenAiSdk.APIConnectionTimeoutError || error instanceof AnthropicSdk.APIConnectionTimeoutError) {
    return new ModelCallError('timeout', error.message);
  }
  if (error instanceof OpenAiSdk.APIUserAbortError || error instanceof AnthropicSdk.APIUserAbortError) {
    return new ModelCallError('connection', error.message);
  }
  if (error instanceof OpenAiSdk.APIConnectionError || error instanceof AnthropicSdk.APIConnectionError) {
    const kind = TIMEOUT_CODES.has(networkCode(error) ?? '') ? 'timeout' : 'connection';
    return new ModelCallError(kind, rootMessage(error));
  }
  if (isSdkApiError(error)) {
    if (error.status === undefined) return classifyStreamedError(error);
    const headers = (error as { headers?: Headers | null }).headers;
    return classifyStatus(error.status, error, retryHintOf(headers));
  }
  if (error instanceof GoogleApiError) {
    const message = googleErrorMessage(error.message);
    // The Gemini API refuses a wrong key with 400 INVALID_ARGUMENT, naming the reason.
    if (error.message.includes('API_KEY_INVALID')) return new ModelCallError('authentication', message, error.status);
    return classifyStatus(error.status, { message }, googleRetryDelayMs(error.message));
  }
  if (error instanceof AwsServiceException) return classifyAwsError(error);
  if (!(error instanceof Error)) return new ModelCallError('invalid_response', String(error));
  // AbortSignal.timeout() aborts with a TimeoutError; any other abort only ended the connection early.
  if (error.name === 'TimeoutError') return new ModelCallError('timeout', error.message);
  if (error.name === 'AbortError') return new ModelCallError('connection', error.message);
  const code = networkCode(error);
  if (code !== null) return new ModelCallError(TIMEOUT_CODES.has(code) ? 'timeout' : 'connection', rootMessage(error));
  if (error instanceof SyntaxError) {
    return new ModelCallError('invalid_response', `The model provider sent a response that is not valid JSON: ${error.message}`);
  }
  return new ModelCallError('invalid_response', error.message);
}
