/** Reads a Server-Sent Events body into its `data:` payloads, JSON-parsed except for `[DONE]`. */
export type SseEvent = { event: string | null; data: Record<string, unknown> | '[DONE]' };

export async function* readSse(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary = buffer.indexOf('\n\n');
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) {
        const text = data.join('\n');
        yield { event, data: text === '[DONE]' ? '[DONE]' : (JSON.parse(text) as Record<string, unknown>) };
      }
      boundary = buffer.indexOf('\n\n');
    }
  }
}

export async function collectSse(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(response)) events.push(event);
  return events;
}
