import type { createPublicKey} from 'node:crypto';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { embeddingFor } from '../embeddings.js';
import { sendJson, startProtocolServer, usageOf, writeSse, type ProtocolServer, type ProviderReply, type ReceivedRequest } from './script.js';

type Answer = Extract<ProviderReply, { type: 'answer' }>;

/** A Google service account's JSON key whose `token_uri` is the scripted server's token endpoint. */
export type TestServiceAccount = {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  token_uri: string;
};

export type GeminiProtocolServer = ProtocolServer & {
  serviceAccount: TestServiceAccount;
  /** Access tokens the token endpoint issued; Vertex requests must carry one. */
  issuedTokens: string[];
};

function googleError(status: number, code: string, message: string, details: unknown[] = []) {
  return { error: { code: status, message, status: code, details } };
}

/** Verifies the JWT bearer assertion (RFC 7523) with the service account's public key and its claims. */
function verifiedAssertion(assertion: string, publicKey: ReturnType<typeof createPublicKey>, account: TestServiceAccount): string | null {
  const [header, claims, signature] = assertion.split('.');
  if (!header || !claims || !signature) return 'malformed assertion';
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${header}.${claims}`);
  if (!verifier.verify(publicKey, Buffer.from(signature, 'base64url'))) return 'invalid signature';
  const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as { iss?: string; aud?: string; exp?: number; scope?: string };
  if (parsed.iss !== account.client_email) return 'unknown issuer';
  if (parsed.aud !== account.token_uri) return 'wrong audience';
  if (!parsed.scope?.includes('cloud-platform')) return 'missing scope';
  return null;
}

function parts(reply: Answer, withSignature: boolean): Array<Record<string, unknown>> {
  const result: Array<Record<string, unknown>> = [];
  if (reply.reasoning) result.push({ text: reply.reasoning, thought: true });
  const signature = withSignature ? (reply.signature ?? reply.hiddenReasoning) : undefined;
  // Gemini puts the turn's thought signature on its first function call, else on its text.
  const calls = reply.calls ?? [];
  if (reply.text) result.push({ text: reply.text, ...(signature && calls.length === 0 ? { thoughtSignature: signature } : {}) });
  calls.forEach((call, index) => result.push({ functionCall: { name: call.name, args: call.arguments }, ...(signature && index === 0 ? { thoughtSignature: signature } : {}) }));
  return result;
}

function usageMetadata(reply: Answer) {
  const usage = usageOf(reply);
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output,
    ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
    ...(usage.reasoning ? { thoughtsTokenCount: usage.reasoning } : {}),
    totalTokenCount: usage.input + usage.output + (usage.reasoning ?? 0),
  };
}

function generateResponse(reply: Answer, model: string) {
  return {
    candidates: [{ content: { role: 'model', parts: parts(reply, true) }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usageMetadata(reply),
    modelVersion: model,
  };
}

/** A streamed answer: its thoughts, its text in pieces, its calls, then the finish with usage and the signature. */
function streamedChunks(reply: Answer, model: string) {
  const chunk = (chunkParts: Array<Record<string, unknown>>, finish?: boolean) => ({
    candidates: [{ content: { role: 'model', parts: chunkParts }, index: 0, ...(finish ? { finishReason: 'STOP' } : {}) }],
    ...(finish ? { usageMetadata: usageMetadata(reply) } : {}),
    modelVersion: model,
  });
  const all = parts(reply, true);
  const chunks = all.flatMap((part) => {
    if (typeof part.text === 'string' && !part.thoughtSignature && part.text.length > 8) {
      return (part.text.match(/.{1,8}/gs) ?? []).map((piece) => chunk([{ ...part, text: piece }]));
    }
    return [chunk([part])];
  });
  const last = chunks.at(-1);
  if (last) {
    last.candidates[0]!.finishReason = 'STOP';
    Object.assign(last, { usageMetadata: usageMetadata(reply) });
  }
  return chunks;
}

/**
 * A scripted Gemini on loopback, speaking both of its APIs: the Gemini API (`/v1beta/models/{model}:…`, key in
 * `x-goog-api-key`) and Vertex AI (`/v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}:…`,
 * a bearer token its own token endpoint issued for the test service account's signed assertion).
 */
export async function startGeminiProtocolServer(options: { apiKey: string; models?: string[] }): Promise<GeminiProtocolServer> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issuedTokens: string[] = [];
  const models = options.models ?? ['gemini-2.5-flash', 'text-embedding-004'];
  let account: TestServiceAccount;

  function authenticationError(request: ReceivedRequest): { status: number; body: unknown } | null {
    if (request.path.startsWith('/v1beta1/') || request.path.includes('/projects/')) {
      const token = request.headers.authorization?.replace(/^Bearer\s+/i, '');
      if (token && issuedTokens.includes(token)) return null;
      return { status: 401, body: googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.') };
    }
    if (request.headers['x-goog-api-key'] === options.apiKey) return null;
    // The Gemini API answers a wrong key with 400, naming the reason.
    return {
      status: 400,
      body: googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ]),
    };
  }

  const server = await startProtocolServer((request, response, next) => {
    if (request.path === '/token') {
      const form = new URLSearchParams(request.rawBody);
      const refusal =
        form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' ? 'unsupported grant' : verifiedAssertion(form.get('assertion') ?? '', publicKey, account);
      if (refusal) return sendJson(response, 400, { error: 'invalid_grant', error_description: refusal });
      const token = `ya29.scripted-${issuedTokens.length + 1}`;
      issuedTokens.push(token);
      return sendJson(response, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    const refused = authenticationError(request);
    if (refused) return sendJson(response, refused.status, refused.body);
    if (request.method === 'GET' && request.path.endsWith('/models')) {
      return sendJson(response, 200, {
        models: models.map((id) => ({ name: `models/${id}`, inputTokenLimit: 1_048_576, supportedGenerationMethods: ['generateContent'] })),
      });
    }
    const [, model = '', method = ''] = /\/models\/([^/:]+):(\w+)$/.exec(request.path) ?? [];
    if (method === 'batchEmbedContents') {
      const body = request.body as { requests: Array<{ content: { parts: Array<{ text: string }> } }> };
      return sendJson(response, 200, { embeddings: body.requests.map((entry) => ({ values: embeddingFor(entry.content.parts[0]!.text, 32) })) });
    }
    if (method === 'predict') {
      const body = request.body as { instances: Array<{ content: string }> };
      return sendJson(response, 200, { predictions: body.instances.map((instance) => ({ embeddings: { values: embeddingFor(instance.content, 32), statistics: { token_count: 1 } } })) });
    }
    if (method !== 'generateContent' && method !== 'streamGenerateContent') {
      return sendJson(response, 404, googleError(404, 'NOT_FOUND', `scripted provider: no route for ${request.method} ${request.path}`));
    }
    const reply = next();
    if (!reply) return sendJson(response, 500, googleError(500, 'INTERNAL', 'scripted provider: no reply left'));
    if (reply.type === 'error') {
      const details = reply.retryAfterSeconds === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${reply.retryAfterSeconds}s` }];
      return sendJson(response, reply.status, googleError(reply.status, reply.status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL', reply.message, details));
    }
    if (method === 'generateContent') return sendJson(response, 200, generateResponse(reply, model));
    writeSse(response, streamedChunks(reply, model).map((data) => ({ data })));
  });
  account = {
    type: 'service_account',
    project_id: 'engram-test-project',
    private_key_id: 'scripted-key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'engram-test@engram-test-project.iam.gserviceaccount.com',
    token_uri: `${server.url}/token`,
  };
  return Object.assign(server, { serviceAccount: account, issuedTokens });
}
