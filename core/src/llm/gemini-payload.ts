import type { ModelRequest, PromptContentPart, PromptMessage, PromptToolCall, ToolChoice } from '../model.js';
import { reasoningBudget, reasoningFor } from './wire-protocol.js';

type GeminiPart = Record<string, unknown>;
type GeminiContent = { role: 'user' | 'model'; parts: GeminiPart[] };

function userPart(part: PromptContentPart): GeminiPart {
  if (part.type === 'text') return { text: part.text };
  return { inlineData: { mimeType: part.mediaType, data: part.data } };
}

function argumentsObject(call: PromptToolCall): Record<string, unknown> {
  // Unparsable arguments were already answered with an error result, which tells the model what went wrong.
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A model turn goes back with its thought signature on the part that carried it: the first function call of the
 * turn, else its text (Gemini's thoughts themselves are not sent back).
 */
function modelContent(message: Extract<PromptMessage, { role: 'assistant' }>): GeminiContent {
  const signature = reasoningFor('gemini', message.reasoningParts).find((part) => part.type === 'reasoning' && part.signature);
  const thoughtSignature = signature?.type === 'reasoning' ? signature.signature : null;
  const calls = message.toolCalls ?? [];
  const parts: GeminiPart[] = [];
  if (message.content) parts.push({ text: message.content, ...(thoughtSignature && calls.length === 0 ? { thoughtSignature } : {}) });
  calls.forEach((call, index) => {
    parts.push({
      functionCall: { name: call.name, args: argumentsObject(call) },
      ...(thoughtSignature && index === 0 ? { thoughtSignature } : {}),
    });
  });
  return { role: 'model', parts };
}

/** A tool's result, as Gemini wants it: under the function's name, as an object. */
function functionResponse(name: string, content: string): GeminiPart {
  return { functionResponse: { name, response: { result: content } } };
}

function contentsOf(messages: PromptMessage[]): GeminiContent[] {
  const toolNames = new Map<string, string>();
  const contents: GeminiContent[] = [];
  for (const message of messages) {
    let content: GeminiContent;
    switch (message.role) {
      case 'system':
        content = { role: 'user', parts: message.content ? [{ text: message.content }] : [] };
        break;
      case 'user':
        content = { role: 'user', parts: typeof message.content === 'string' ? [{ text: message.content }] : message.content.map(userPart) };
        break;
      case 'assistant':
        for (const call of message.toolCalls ?? []) toolNames.set(call.id, call.name);
        content = modelContent(message);
        break;
      case 'tool':
        content = { role: 'user', parts: [functionResponse(toolNames.get(message.toolCallId) ?? 'unknown_tool', message.content)] };
        break;
    }
    if (content.parts.length === 0) continue;
    const previous = contents.at(-1);
    // Every result of one model turn's parallel calls goes back in the one turn after it.
    if (previous?.role === content.role) previous.parts.push(...content.parts);
    else contents.push(content);
  }
  return contents;
}

function functionCallingConfig(choice: ToolChoice): Record<string, unknown> {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

/**
 * The JSON body of Gemini's `generateContent` (Gemini API and Vertex AI alike, the model being in the path) for a
 * request. Leading system messages are the system instruction; later ones stay in place as user text.
 */
export function buildGeminiPayload(request: ModelRequest): Record<string, unknown> {
  const { settings } = request;
  const leadingSystemCount = request.messages.findIndex((message) => message.role !== 'system');
  const systemCount = leadingSystemCount === -1 ? request.messages.length : leadingSystemCount;
  const system = request.messages
    .slice(0, systemCount)
    .flatMap((message) => (message.role === 'system' ? [message.content] : []))
    .join('\n\n');
  const generationConfig = {
    ...(typeof settings.temperature === 'number' ? { temperature: settings.temperature } : {}),
    ...(typeof settings.max_tokens === 'number' ? { maxOutputTokens: settings.max_tokens } : {}),
    ...(settings.enable_reasoner === true ? { thinkingConfig: { includeThoughts: true, thinkingBudget: reasoningBudget(settings) } } : {}),
  };
  return {
    contents: contentsOf(request.messages.slice(systemCount)),
    ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
    ...(request.tools.length > 0
      ? {
          tools: [
            {
              functionDeclarations: request.tools.map((tool) => ({
                name: tool.name,
                description: tool.description,
                parametersJsonSchema: tool.parameters,
              })),
            },
          ],
          toolConfig: { functionCallingConfig: functionCallingConfig(request.toolChoice) },
        }
      : {}),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  };
}
