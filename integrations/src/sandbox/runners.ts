/**
 * The programs a sandboxed child process starts with. Each reads the tool's arguments as JSON on stdin,
 * calls the tool, and writes one JSON outcome to file descriptor 3 — a channel of its own, so nothing the
 * tool prints can be mistaken for its result. Values are never pickled: a result is JSON or an error.
 *
 * Outcome: {"status":"success","value":<json>} or {"status":"error","error_type":"…","error_message":"…"}.
 */

/** argv: function name, tool source path, memory limit in MB (0 = none). */
export const PYTHON_RUNNER = String.raw`
import asyncio
import inspect
import json
import os
import resource
import sys
import traceback


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
import { pathToFileURL } from 'node:url';

const [toolPath, callJson] = process.argv.slice(2);
// bubblewrap sets PWD to the working directory: the tool's environment is exactly what it was given.
delete process.env.PWD;

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
  report({ status: 'error', error_type: isError ? error.name : typeof error, error_message: isError ? error.message : String(error) });
}
// Timers or sockets the tool left open must not keep the process (and the caller) waiting.
process.exit(0);
`;
