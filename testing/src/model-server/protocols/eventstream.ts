import { crc32 } from 'node:zlib';

/** One message of AWS's `application/vnd.amazon.eventstream` binary framing, with string headers. */
export function eventStreamMessage(headers: Record<string, string>, payload: unknown): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, 'utf8');
      const valueBytes = Buffer.from(value, 'utf8');
      const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
      header.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(header, 1);
      header.writeUInt8(7, 1 + nameBytes.length); // 7: string
      header.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      valueBytes.copy(header, 4 + nameBytes.length);
      return header;
    }),
  );
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const total = 12 + headerBytes.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const withoutCrc = Buffer.concat([prelude, headerBytes, body]);
  const messageCrc = Buffer.alloc(4);
  messageCrc.writeUInt32BE(crc32(withoutCrc), 0);
  return Buffer.concat([withoutCrc, messageCrc]);
}

export function eventMessage(eventType: string, payload: unknown): Buffer {
  return eventStreamMessage({ ':message-type': 'event', ':event-type': eventType, ':content-type': 'application/json' }, payload);
}
