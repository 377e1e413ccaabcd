import { once } from 'node:events';
import net from 'node:net';

/**
 * Ports for programs that must be told their port before they start: one that cannot listen on port 0 and say
 * which port it got (the Temporal server, which also hands its ports to its own services; Jaeger; `npm start`,
 * which restarts what dies on the same ports), or a server that must come back after a crash on the port its
 * clients know. Everything else listens on port 0 and reports its port.
 *
 * A port is reserved the way the Temporal CLI reserves its own: bound, connected to, and closed from the
 * listening side first, which leaves that side in TIME_WAIT for a minute. Meanwhile the system gives the port to
 * nobody who asks for any free one (a listen on port 0, an outgoing connection), while a program that names it
 * can listen on it (SO_REUSEADDR, which Node and Go set), and a connection to it is refused. Only a program that
 * picks the same number by itself can take it first: `startOnReservedPorts` then starts again on other ports.
 */
export async function reservePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  server.listen(0, host);
  await once(server, 'listening');
  return leaveInTimeWait(server, host);
}

/** A port in [low, high] (below the range the system hands out, for servers that need such ports), reserved as `reservePort` does. */
export async function reservePortInRange(low: number, high: number, host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const server = net.createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(low + Math.floor(Math.random() * (high - low + 1)), host, () => resolve(true));
    });
    if (bound) return leaveInTimeWait(server, host);
  }
  throw new Error(`no free port in ${low}–${high}`);
}

async function leaveInTimeWait(server: net.Server, host: string): Promise<number> {
  const { port } = server.address() as net.AddressInfo;
  const accepted = once(server, 'connection') as Promise<[net.Socket]>;
  const client = net.connect(port, host);
  await once(client, 'connect');
  const [socket] = await accepted;
  const closed = Promise.all([once(socket, 'close'), once(client, 'close')]);
  // The listening side closes first, so it is the one left in TIME_WAIT.
  socket.end();
  await closed;
  server.close();
  await once(server, 'close');
  return port;
}

/** Whether a start failed because a port it was given was taken meanwhile. */
export function isPortConflict(error: unknown): boolean {
  return /EADDRINUSE|address already in use/i.test(error instanceof Error ? error.message : String(error));
}

/**
 * Starts a program on `count` reserved ports, and again on others when another program took one of them first
 * (its error must then say `address already in use` or `EADDRINUSE`).
 */
export async function startOnReservedPorts<T>(count: number, start: (ports: number[]) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports: number[] = [];
    for (let index = 0; index < count; index++) ports.push(await reservePort());
    try {
      return await start(ports);
    } catch (error) {
      if (attempt >= attempts || !isPortConflict(error)) throw error;
    }
  }
}
