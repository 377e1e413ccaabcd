import type { ModelRequest, PromptContentPart, PromptMessage, ReasoningPart, ToolChoice } from '../model.js';
import { reasoningFor } from './wire-protocol.js';

type InputItem = Record<string, unknown>;

function inputContentPart(part: PromptContentPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  return { type: 'input_image', image_url: `data:${part.mediaType};base64,${part.data}`, detail: 'auto' };
}

/**
 * OpenAI's reasoning items go back as they came (with `store: false` the encrypted content is the reasoning
 * itself): each with its id, its summary and its encrypted content.
 */
function reasoningItems(parts: ReasoningPart[] | undefined): InputItem[] {
  return reasoningFor('openai_responses', parts).flatMap((part): InputItem[] => {
    if (!part.itemId) return [];
    if (part.type === 'redacted_reasoning') return [{ type: 'reasoning', id: part.itemId, summary: [], encrypted_content: part.data }];
    return [
      {
        type: 'reasoning',
        id: part.itemId,
        summary: part.text ? [{ type: 'summary_text', text: part.text }] : [],
        ...(part.signature ? { encrypted_content: part.signature } : {}),
      },
    ];
  });
}

function inputItems(message: PromptMessage): InputItem[] {
  switch (message.role) {
    case 'system':
      return [{ type: 'message', role: 'system', content: message.content }];
    case 'user':
      return [
        {
          type: 'message',
          role: 'user',
          content: typeof message.content === 'string' ? message.content : message.content.map(inputContentPart),
        },
      ];
    case 'assistant':
      return [
        ...reasoningItems(message.reasoningParts),
        ...(message.content ? [{ type: 'message', role: 'assistant', content: message.content }] : []),
        ...(message.toolCalls ?? []).map((call) => ({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments })),
      ];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }];
  }
}

function responsesToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

/**
 * The JSON body of OpenAI's `POST /responses` for a request. Nothing is stored at OpenAI (`store: false`):
 * the reasoning is asked back encrypted and sent again with the next step, as the stateless mode requires.
 */
export function buildOpenAiResponsesPayload(request: ModelRequest): Record<string, unknown> {
  const { settings } = request;
  const hasTools = request.tools.length > 0;
  return {
    model: settings.model,
    input: request.messages.flatMap(inputItems),
    ...(hasTools
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function',
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters,
            strict: false,
          })),
          tool_choice: responsesToolChoice(request.toolChoice),
          parallel_tool_calls: request.parallelToolCalls,
        }
      : {}),
    reasoning: { ...(settings.reasoning_effort ? { effort: settings.reasoning_effort } : {}), summary: 'auto' },
    include: ['reasoning.encrypted_content'],
    store: false,
    ...(typeof settings.max_tokens === 'number' ? { max_output_tokens: settings.max_tokens } : {}),
    ...(request.stream ? { stream: true } : {}),
  };
}
