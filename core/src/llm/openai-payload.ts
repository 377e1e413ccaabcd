import type { ModelRequest, PromptContentPart, PromptMessage, ToolChoice } from '../model.js';

function openAiContentPart(part: PromptContentPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return { type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${part.data}` } };
}

function openAiMessage(message: PromptMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return {
        role: 'user',
        content: typeof message.content === 'string' ? message.content : message.content.map(openAiContentPart),
      };
    case 'assistant':
      // Reasoning is not sent back: Chat Completions has no input field for it and some
      // compatible servers (DeepSeek) reject one.
      if (!message.toolCalls || message.toolCalls.length === 0) return { role: 'assistant', content: message.content ?? '' };
      return {
        role: 'assistant',
        content: message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function openAiToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** The JSON body of `POST /chat/completions` for a request. */
export function buildOpenAiChatPayload(request: ModelRequest): Record<string, unknown> {
  const { settings } = request;
  const hasTools = request.tools.length > 0;
  return {
    model: settings.model,
    messages: request.messages.map(openAiMessage),
    // Servers reject tool_choice and parallel_tool_calls without tools.
    ...(hasTools
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function',
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
          tool_choice: openAiToolChoice(request.toolChoice),
          parallel_tool_calls: request.parallelToolCalls,
        }
      : {}),
    ...(typeof settings.temperature === 'number' ? { temperature: settings.temperature } : {}),
    ...(typeof settings.max_tokens === 'number' ? { max_tokens: settings.max_tokens } : {}),
    ...(typeof settings.frequency_penalty === 'number' ? { frequency_penalty: settings.frequency_penalty } : {}),
    ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}
