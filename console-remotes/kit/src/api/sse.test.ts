import { describe, expect, it } from 'vitest';
import { readSse } from './sse.js';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]) {
  const events = [];
  for await (const event of readSse(streamOf(chunks))) events.push(event);
  return events;
}

describe('readSse', () => {
  it('splits events however the bytes are chunked', async () => {
    const body = 'data: {"a":1}\n\nevent: error\ndata: {"b":\ndata: 2}\n\n: comment\r\ndata: [DONE]\r\n\r\n';
    const whole = await collect([body]);
    const byteByByte = await collect([...body]);
    expect(whole).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'error', data: '{"b":\n2}' },
      { event: 'message', data: '[DONE]' },
    ]);
    expect(byteByByte).toEqual(whole);
  });

  it('keeps a multi-byte character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 8));
        controller.enqueue(bytes.slice(8));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readSse(stream)) events.push(event);
    expect(events).toEqual([{ event: 'message', data: 'héllo' }]);
  });
});
