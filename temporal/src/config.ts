import { z } from 'zod';
import { AGENT_RUNS_TASK_QUEUE } from './task-queues.js';

export class ConfigError extends Error {}

const HOST_PORT = /^[A-Za-z0-9.\-_]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/;

export const TemporalConfigSchema = z.object({
  TEMPORAL_ADDRESS: z
    .string()
    .regex(HOST_PORT, 'must be host:port, e.g. 127.0.0.1:7233')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(AGENT_RUNS_TASK_QUEUE),
  ENGRAM_UNSAFE_LOCAL_TOOLS: z.stringbool().default(false),
});

export type TemporalConfig = {
  /** Unset means: run a local dev server. */
  address: string | undefined;
  namespace: string;
  taskQueue: string;
  /** Run local tools unsandboxed where the kernel refuses bubblewrap's namespaces, instead of refusing them. */
  unsafeLocalTools: boolean;
};

/** Turns the first problem into one line naming the variable, for a clean exit at start. */
export function firstIssueLine(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'config'}: ${issue.message}` : 'invalid configuration';
}

/** An empty variable means unset, as in most shells' `VAR= command`. */
export function withoutEmptyValues(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
  );
}

export function parseTemporalConfig(env: NodeJS.ProcessEnv): TemporalConfig {
  const parsed = TemporalConfigSchema.safeParse(withoutEmptyValues(env));
  if (!parsed.success) throw new ConfigError(firstIssueLine(parsed.error));
  return {
    address: parsed.data.TEMPORAL_ADDRESS,
    namespace: parsed.data.TEMPORAL_NAMESPACE,
    taskQueue: parsed.data.TEMPORAL_TASK_QUEUE,
    unsafeLocalTools: parsed.data.ENGRAM_UNSAFE_LOCAL_TOOLS,
  };
}
