import type { McpCallResult } from './connection.js';

export type McpToolOutcome = { status: 'success' | 'error'; funcReturn: string };

function describePart(part: McpCallResult['content'][number]): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}]`;
    case 'resource':
      return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
    case 'resource_link':
      return `[resource ${part.uri}]`;
    default:
      return JSON.stringify(part);
  }
}

/**
 * What the model reads from an MCP tool call: the text parts joined (other media named, not
 * inlined), or the structured content when the server sent only that. `isError` makes it an error.
 */
export function toolOutcome(result: McpCallResult): McpToolOutcome {
  const parts = (result.content ?? []).map(describePart);
  const text = parts.length > 0 ? parts.join('\n') : result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : '';
  return { status: result.isError ? 'error' : 'success', funcReturn: text };
}
