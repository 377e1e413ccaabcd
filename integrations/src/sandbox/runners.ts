/**
 * The programs a sandboxed child process starts with. Each reads the tool's arguments as JSON on stdin,
 * calls the tool, and writes one JSON outcome to file descriptor 3 — a channel of its own, so nothing the
 * tool prints can be mistaken for its result. Values are never pickled: a result is JSON or an error.
 *
 * Outcome: {"status":"success","value":<json>} or {"status":"error","error_type":"…","error_message":"…"}.
 *
 * A tool allowed the network has no network interface but loopback: ENGRAM_EGRESS_SOCKET names the egress proxy's
 * Unix socket. The runner relays a loopback port to it and points HTTP_PROXY and HTTPS_PROXY there (and, in Node,
 * fetch, which ignores those variables), then removes the variable before the tool runs.
 */

/** argv: function name, tool source path, memory limit in MB (0 = none). */
export const PYTHON_RUNNER = String.raw`
import asyncio
import inspect
import json
import os
import resource
import socket
import sys
import threading
import traceback


def relay(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def route_network_through_egress_proxy():
    socket_path = os.environ.pop('ENGRAM_EGRESS_SOCKET', None)
    if not socket_path:
        return
    threading.stack_size(256 * 1024)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(('127.0.0.1', 0))
    listener.listen(64)

    def serve():
        while True:
            client, _ = listener.accept()
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(socket_path)
            except OSError:
                client.close()
                continue
            threading.Thread(target=relay, args=(client, upstream), daemon=True).start()
            threading.Thread(target=relay, args=(upstream, client), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    proxy = 'http://127.0.0.1:%d' % listener.getsockname()[1]
    for name in ('HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'):
        os.environ[name] = proxy


def encode(outcome):
    try:
        return json.dumps(outcome, default=str, allow_nan=False)
    except (TypeError, ValueError) as error:
        return json.dumps({
            'status': 'error',
            'error_type': type(error).__name__,
            'error_message': 'the return value cannot be encoded as JSON: ' + str(error),
        })


def main():
    # bubblewrap sets PWD to the working directory: the tool's environment is exactly what it was given.
    os.environ.pop('PWD', None)
    route_network_through_egress_proxy()
    function_name, source_path, memory_limit_mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
    results = os.fdopen(3, 'w', encoding='utf-8')
    try:
        if memory_limit_mb > 0:
            limit = memory_limit_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        args = json.loads(sys.stdin.read() or '{}')
        with open(source_path, encoding='utf-8') as source:
            code = compile(source.read(), 'tool.py', 'exec')
        # Not '__main__': a tool's own "if __name__ == '__main__'" demo code must not run.
        namespace = {'__name__': 'engram_tool'}
        exec(code, namespace)
        function = namespace.get(function_name)
        if not callable(function):
            raise NameError("the source defines no function named '" + function_name + "'")
        value = function(**args)
        if inspect.iscoroutine(value):
            value = asyncio.run(value)
        outcome = {'status': 'success', 'value': value}
    except BaseException as error:
        traceback.print_exc()
        outcome = {'status': 'error', 'error_type': type(error).__name__, 'error_message': str(error)}
    sys.stdout.flush()
    sys.stderr.flush()
    results.write(encode(outcome))
    results.close()


main()
`;

/**
 * argv: transpiled tool module path, then how to call it as JSON: {"mode":"object"} passes the arguments
 * object as the one parameter, {"mode":"positional","names":[…]} spreads them in declaration order.
 */
export const NODE_RUNNER = String.raw`
import { readFileSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { pathToFileURL } from 'node:url';

const [toolPath, callJson] = process.argv.slice(2);
// bubblewrap sets PWD to the working directory: the tool's environment is exactly what it was given.
delete process.env.PWD;
const egressSocket = process.env.ENGRAM_EGRESS_SOCKET;
delete process.env.ENGRAM_EGRESS_SOCKET;
if (egressSocket) await routeNetworkThroughEgressProxy(egressSocket);

/** A CONNECT tunnel to host:port through the egress proxy, TLS on top for https. */
function tunnel(socketPath, { hostname, port, protocol, servername }) {
  const target = (hostname.includes(':') ? '[' + hostname + ']' : hostname) + ':' + (port || (protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let head = '';
    socket.once('error', reject);
    socket.on('data', function answer(chunk) {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', answer);
      if (!/^HTTP\/1\.[01] 200/.test(head)) {
        socket.destroy();
        return reject(new Error('The egress proxy refused ' + target + ': ' + (head.slice(end + 4) || head.split('\r\n')[0])));
      }
      if (protocol !== 'https:') return resolve(socket);
      const secure = connectTls({ socket, servername: servername || hostname, ALPNProtocols: ['http/1.1'] }, () => resolve(secure));
      secure.once('error', reject);
    });
    socket.write('CONNECT ' + target + ' HTTP/1.1\r\nHost: ' + target + '\r\n\r\n');
  });
}

async function routeNetworkThroughEgressProxy(socketPath) {
  const relay = createServer((client) => {
    const upstream = connect(socketPath);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relay.unref();
  const proxy = 'http://127.0.0.1:' + relay.address().port;
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) process.env[name] = proxy;
  // fetch's dispatcher exists once fetch has run; a dispatcher of the same class then tunnels every connection.
  const dispatcherKey = Symbol.for('undici.globalDispatcher.1');
  await fetch('http://127.0.0.1:9/').catch(() => undefined);
  const Dispatcher = globalThis[dispatcherKey].constructor;
  globalThis[dispatcherKey] = new Dispatcher({
    connect: (options, callback) => tunnel(socketPath, options).then((socket) => callback(null, socket), (error) => callback(error, null)),
  });
}

function report(outcome) {
  let text;
  try {
    text = JSON.stringify(outcome, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
  } catch (error) {
    text = JSON.stringify({ status: 'error', error_type: 'TypeError', error_message: 'the return value cannot be encoded as JSON: ' + error.message });
  }
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(3, bytes, offset, bytes.length - offset);
}

try {
  const args = JSON.parse(readFileSync(0, 'utf8') || '{}');
  const call = JSON.parse(callJson);
  const { __engramTool: tool } = await import(pathToFileURL(toolPath).href);
  const value = call.mode === 'object' ? await tool(args) : await tool(...call.names.map((name) => args[name]));
  report({ status: 'success', value: value === undefined ? null : value });
} catch (error) {
  console.error(error instanceof Error ? error.stack : error);
  const isError = error instanceof Error;
  // "fetch failed" says nothing by itself; what failed is in its causes.
  let message = isError ? error.message : String(error);
  for (let cause = isError ? error.cause : undefined; cause instanceof Error; cause = cause.cause) message += ': ' + cause.message;
  report({ status: 'error', error_type: isError ? error.name : typeof error, error_message: message });
}
// Timers or sockets the tool left open must not keep the process (and the caller) waiting.
process.exit(0);
`;
