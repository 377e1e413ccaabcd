import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, type LogEntry, type Logger, type LogLevel } from '@temporalio/worker';

/**
 * Attributes the SDK puts on every activity and workflow line that tell someone watching the terminal
 * nothing (the task token alone is a few hundred characters of base64).
 */
const UNINFORMATIVE_ATTRIBUTES = new Set([
  'taskToken',
  'namespace',
  'taskQueue',
  'activityId',
  'activityRunId',
  'workflowRunId',
  'runId',
  'isLocal',
  'sdkComponent',
]);

/** Deep enough for any failure chain the SDK builds (activity → application failure → provider error). */
const MAX_CAUSES = 5;

function errorChain(error: Error): Error[] {
  const chain: Error[] = [];
  for (let current: unknown = error; current instanceof Error && chain.length < MAX_CAUSES; current = current.cause) chain.push(current);
  return chain;
}

/** `kind: message` for the error and each cause: what went wrong, in one line. */
function describeError(error: Error): string {
  return errorChain(error)
    .map((link) => `${link instanceof ApplicationFailure && link.type ? link.type : link.name}: ${link.message}`)
    .join(' ← ');
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * One line per worker log entry: `<time> [LEVEL] message key=value … error="kind: message"`. The SDK's
 * own format prints the whole metadata object, so each expected retry of an activity (a model call the
 * provider rate-limited) took some 30 lines of stack trace and task token. Stack traces follow on further
 * lines only when `stacks` is set (LOG_LEVEL debug or trace).
 */
export function formatWorkerLogEntry(entry: LogEntry, options: { stacks: boolean }): string {
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const fields: string[] = [];
  const stackLines: string[] = [];
  for (const [key, value] of Object.entries(entry.meta ?? {})) {
    if (UNINFORMATIVE_ATTRIBUTES.has(key) || value === undefined) continue;
    if (value instanceof Error) {
      fields.push(`${key}=${JSON.stringify(describeError(value))}`);
      if (options.stacks) stackLines.push(...errorChain(value).flatMap((link) => (link.stack ? [link.stack] : [])));
    } else {
      fields.push(`${key}=${formatValue(value)}`);
    }
  }
  const head = `${time} [${entry.level}] ${entry.message}${fields.length > 0 ? ` ${fields.join(' ')}` : ''}`;
  return [head, ...stackLines].join('\n');
}

/**
 * The worker's threshold for LOG_LEVEL. The SDK's INFO lines are lifecycle chatter (worker created,
 * state changed), so the worker stays at WARN for `info`; `silent` logs nothing.
 */
export function workerLogLevel(logLevel: string | undefined): LogLevel | 'SILENT' {
  switch (logLevel) {
    case 'trace':
      return 'TRACE';
    case 'debug':
      return 'DEBUG';
    case 'error':
    case 'fatal':
      return 'ERROR';
    case 'silent':
      return 'SILENT';
    default:
      return 'WARN';
  }
}

/**
 * Writes what an operator must see once at start whatever the threshold (only `silent` hides it), in the
 * worker's line format: the SDK's INFO is chatter, so the threshold stays at WARN for `info`, and a
 * start-up fact such as how tools are sandboxed would otherwise be hidden exactly when all is well.
 */
export function createStartupAnnouncer(options: { logLevel: string | undefined; write: (text: string) => void }): (level: LogLevel, message: string) => void {
  if (workerLogLevel(options.logLevel) === 'SILENT') return () => undefined;
  return (level, message) =>
    options.write(`${formatWorkerLogEntry({ level, message, timestampNanos: BigInt(Date.now()) * 1_000_000n }, { stacks: false })}\n`);
}

/** The Temporal Runtime's logger for the worker process: one line per entry, stack traces only at debug and trace. */
export function createWorkerLogger(options: { logLevel: string | undefined; write: (text: string) => void }): Logger {
  const level = workerLogLevel(options.logLevel);
  if (level === 'SILENT') return new DefaultLogger('ERROR', () => undefined);
  const stacks = level === 'DEBUG' || level === 'TRACE';
  return new DefaultLogger(level, (entry) => options.write(`${formatWorkerLogEntry(entry, { stacks })}\n`));
}
