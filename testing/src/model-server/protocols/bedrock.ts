import { embeddingFor } from '../embeddings.js';
import { eventMessage } from './eventstream.js';
import { callIds, retryHeaders, sendJson, startProtocolServer, usageOf, type ProtocolServer, type ProviderReply } from './script.js';
import { sigV4Refusal, type AwsTestCredentials } from './sigv4.js';

type Answer = Extract<ProviderReply, { type: 'answer' }>;

export type BedrockProtocolServer = ProtocolServer & { credentials: AwsTestCredentials };

function awsError(type: string) {
  return { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` };
}

function contentBlocks(reply: Answer, nextCallId: ReturnType<typeof callIds>): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  if (reply.reasoning) blocks.push({ reasoningContent: { reasoningText: { text: reply.reasoning, signature: reply.signature ?? 'unsigned' } } });
  if (reply.hiddenReasoning) blocks.push({ reasoningContent: { redactedContent: reply.hiddenReasoning } });
  if (reply.text) blocks.push({ text: reply.text });
  for (const call of reply.calls ?? []) blocks.push({ toolUse: { toolUseId: `tooluse_${nextCallId(call)}`, name: call.name, input: call.arguments } });
  return blocks;
}

function usageBlock(reply: Answer) {
  const usage = usageOf(reply);
  return { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output, ...(usage.cached ? { cacheReadInputTokens: usage.cached } : {}) };
}

const stopReasonOf = (reply: Answer) => ((reply.calls ?? []).length > 0 ? 'tool_use' : 'end_turn');

/** ConverseStream's events for an answer: every content block started, its deltas, stopped; then the stop and the usage. */
function streamEvents(reply: Answer, blocks: Array<Record<string, unknown>>): Buffer[] {
  const events = [eventMessage('messageStart', { role: 'assistant' })];
  blocks.forEach((block, contentBlockIndex) => {
    const delta = (payload: unknown) => events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: payload }));
    if (block.toolUse) {
      const { toolUseId, name, input } = block.toolUse as { toolUseId: string; name: string; input: unknown };
      events.push(eventMessage('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId, name } } }));
      delta({ toolUse: { input: JSON.stringify(input) } });
    } else if (typeof block.text === 'string') {
      for (const piece of block.text.match(/.{1,8}/gs) ?? []) delta({ text: piece });
    } else {
      const reasoning = block.reasoningContent as { reasoningText?: { text: string; signature: string }; redactedContent?: string };
      if (reasoning.redactedContent) delta({ reasoningContent: { redactedContent: reasoning.redactedContent } });
      else {
        for (const piece of reasoning.reasoningText!.text.match(/.{1,8}/gs) ?? []) delta({ reasoningContent: { text: piece } });
        delta({ reasoningContent: { signature: reasoning.reasoningText!.signature } });
      }
    }
    events.push(eventMessage('contentBlockStop', { contentBlockIndex }));
  });
  events.push(eventMessage('messageStop', { stopReason: stopReasonOf(reply) }));
  events.push(eventMessage('metadata', { usage: usageBlock(reply), metrics: { latencyMs: 1 } }));
  return events;
}

/**
 * A scripted Amazon Bedrock on loopback: Converse, ConverseStream (AWS event stream framing), InvokeModel for
 * Titan and Cohere embeddings, and the control plane's foundation model list. Every request's SigV4 signature is
 * checked against the test's credentials; one that does not verify is refused as AWS refuses it (403).
 */
export async function startBedrockProtocolServer(options: { accessKeyId: string; secretAccessKey: string; region: string }): Promise<BedrockProtocolServer> {
  const credentials: AwsTestCredentials = { ...options, service: 'bedrock' };
  const nextCallId = callIds();
  const server = await startProtocolServer((request, response, next) => {
    const refusal = sigV4Refusal(request, request.path, credentials);
    if (refusal) {
      const type = refusal.startsWith('UnrecognizedClientException') ? 'UnrecognizedClientException' : 'InvalidSignatureException';
      return sendJson(response, 403, { message: refusal.replace(/^\w+: /, '') }, awsError(type));
    }
    if (request.method === 'GET' && request.path === '/foundation-models') {
      return sendJson(response, 200, {
        modelSummaries: ['anthropic.claude-sonnet-4-20250514-v1:0', 'amazon.nova-pro-v1:0'].map((modelId) => ({
          modelId,
          modelArn: `arn:aws:bedrock:${options.region}::foundation-model/${modelId}`,
          outputModalities: ['TEXT'],
          responseStreamingSupported: true,
        })),
      });
    }
    const [, modelId = '', operation = ''] = /^\/model\/([^/]+)\/([\w-]+)$/.exec(request.path) ?? [];
    if (operation === 'invoke') {
      const body = request.body as { inputText?: string; texts?: string[] };
      if (body.texts) return sendJson(response, 200, { id: 'embed-1', embeddings: body.texts.map((text) => embeddingFor(text, 32)), texts: body.texts, response_type: 'embeddings_floats' });
      return sendJson(response, 200, { embedding: embeddingFor(body.inputText ?? '', 32), inputTextTokenCount: 1 });
    }
    if (operation !== 'converse' && operation !== 'converse-stream') {
      return sendJson(response, 404, { message: `scripted provider: no route for ${request.method} ${request.path}` }, awsError('ResourceNotFoundException'));
    }
    const reply = next();
    if (!reply) return sendJson(response, 500, { message: 'scripted provider: no reply left' }, awsError('InternalServerException'));
    if (reply.type === 'error') {
      const type = reply.status === 429 ? 'ThrottlingException' : reply.status === 403 ? 'AccessDeniedException' : 'InternalServerException';
      return sendJson(response, reply.status, { message: reply.message }, { ...awsError(type), ...retryHeaders(reply) });
    }
    const blocks = contentBlocks(reply, nextCallId);
    if (operation === 'converse') {
      return sendJson(response, 200, {
        output: { message: { role: 'assistant', content: blocks } },
        stopReason: stopReasonOf(reply),
        usage: usageBlock(reply),
        metrics: { latencyMs: 1 },
      });
    }
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-model': decodeURIComponent(modelId) });
    for (const event of streamEvents(reply, blocks)) response.write(event);
    response.end();
  });
  return Object.assign(server, { credentials });
}
