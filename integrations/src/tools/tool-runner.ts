import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  SandboxConfig,
  SandboxEnvironmentVariable,
  type Database,
  type LocalSandboxSettings,
  type SandboxType,
  type SecretBox,
} from '@engram/db';
import { runInLocalSandbox, type SandboxOutcome } from '../sandbox/local-sandbox.js';
import { detectSandboxIsolation, type SandboxIsolation } from '../sandbox/isolation.js';
import { VenvSetupError, type PipRequirement, type VenvManager } from '../sandbox/venv.js';
import type { EgressPolicy } from '../egress/index.js';

/** The reference server's local sandbox timeout (`tool_sandbox_timeout`), when the config sets none. */
export const DEFAULT_LOCAL_TIMEOUT_SECONDS = 180;
/** stdout and stderr together, and separately the return value: enough for any sane tool, far below the worker's memory. */
const SANDBOX_MAX_OUTPUT_BYTES = 1024 * 1024;
const SANDBOX_MEMORY_LIMIT_MB = 1024;

/** Where per-config virtualenvs live unless the process is told otherwise. */
export const defaultVenvRoot = () => path.join(tmpdir(), 'engram-sandbox-venvs');

/** What a remote sandbox type would need to be called; Engram keeps them as sandbox environment variables. */
const REMOTE_CREDENTIALS: Record<Exclude<SandboxType, 'local'>, string[]> = {
  e2b: ['E2B_API_KEY'],
  modal: ['MODAL_TOKEN_ID', 'MODAL_TOKEN_SECRET'],
};

const SANDBOX_TYPES: readonly string[] = ['local', 'e2b', 'modal'];

export type ToolRunRequest = {
  organizationId: string;
  /** The tool's `source_type`. */
  language: string;
  sourceCode: string;
  functionName: string;
  args: Record<string, unknown>;
  /** Variables over the sandbox config's own, which they override (request variables, agent secrets, ids). */
  env: Record<string, string>;
  pipRequirements: PipRequirement[] | null;
  npmRequirements: PipRequirement[] | null;
  /** The tool's `metadata_.sandbox`: a tool may ask for one sandbox type. */
  requestedSandbox: unknown;
  returnCharLimit: number;
};

export type ToolRunnerDeps = {
  db: Database;
  secrets: SecretBox;
  venvs: VenvManager;
  /**
   * How this process isolates local tools, found once at its start (the worker says so in its log). Absent, it is
   * probed on the first local call, and tools are refused where namespaces are unavailable.
   */
  sandboxIsolation?: SandboxIsolation;
  /** What a tool whose sandbox config allows the network may reach. */
  egress: Pick<EgressPolicy, 'fetchFor' | 'connect'>;
};

/** A sealed variable that no longer opens: the server's ENGRAM_SECRET_KEY changed since it was stored. */
export class UnreadableSecretError extends Error {}

export function openSecret(secrets: SecretBox, sealed: string, what: string): string {
  try {
    return secrets.decrypt(sealed);
  } catch {
    throw new UnreadableSecretError(`${what} cannot be decrypted (was ENGRAM_SECRET_KEY changed?)`);
  }
}

/** Cuts a long return the way the reference server does, saying so, so the model knows it saw a part. */
export function truncateToolReturn(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}... [NOTE: function output was truncated since it exceeded the character limit: ${text.length} > ${limit}]`;
}

function failed(functionName: string, errorType: string, message: string): SandboxOutcome {
  return { status: 'error', funcReturn: `Error executing function ${functionName}: ${errorType}: ${message}`, stdout: [], stderr: [] };
}

/**
 * Runs tool source for an organization, the same way for the agent loop and for `POST /v1/tools/run`: picks
 * the sandbox (the tool's `metadata_.sandbox`, else e2b when the organization configured it, else local),
 * builds the environment from the config's variables and the caller's, prepares the venv, runs, truncates.
 */
export function createToolRunner(deps: ToolRunnerDeps) {
  const { db, secrets, venvs } = deps;
  // Probed once and kept: the machine's ability to sandbox does not change while it runs.
  let isolation: Promise<SandboxIsolation> | undefined;
  const sandboxIsolation = () => (isolation ??= deps.sandboxIsolation ? Promise.resolve(deps.sandboxIsolation) : detectSandboxIsolation({ allowUnsafeLocalTools: false }));

  async function configVariables(config: SandboxConfig | null): Promise<Record<string, string>> {
    if (!config) return {};
    const rows = await SandboxEnvironmentVariable.query(db).forOrg(config.organizationId).where({ sandboxConfigId: config.id });
    return Object.fromEntries(rows.map((row) => [row.key, openSecret(secrets, row.valueEnc, `Sandbox variable ${row.key}`)]));
  }

  function remoteSandboxError(request: ToolRunRequest, type: Exclude<SandboxType, 'local'>, config: SandboxConfig | null, variables: Record<string, string>) {
    const needed = REMOTE_CREDENTIALS[type];
    if (!config) {
      return failed(
        request.functionName,
        'SandboxConfigurationError',
        `the tool asks for the ${type} sandbox, but the organization has no ${type} sandbox config: create one with POST /v1/sandbox-config/${type}/default and add ${needed.join(' and ')} as its environment variables`,
      );
    }
    const missing = needed.filter((key) => !variables[key]);
    if (missing.length > 0) {
      return failed(
        request.functionName,
        'SandboxConfigurationError',
        `the ${type} sandbox has no credentials: add ${missing.join(' and ')} with POST /v1/sandbox-config/${config.id}/environment-variable`,
      );
    }
    return failed(
      request.functionName,
      'SandboxConfigurationError',
      `this server has no ${type} client, so tools cannot run in the ${type} sandbox; delete sandbox config ${config.id} (or set the tool's metadata_.sandbox to "local") to use the local sandbox`,
    );
  }

  async function runLocally(request: ToolRunRequest, config: SandboxConfig | null, variables: Record<string, string>): Promise<SandboxOutcome> {
    const { functionName } = request;
    if (request.language !== 'python' && request.language !== 'typescript') {
      return failed(functionName, 'SandboxError', `the local sandbox runs python and typescript tools, not ${request.language}`);
    }
    if (request.language === 'typescript' && (request.npmRequirements?.length ?? 0) > 0) {
      return failed(functionName, 'SandboxError', 'the local sandbox cannot install npm_requirements; use plain Node.js modules');
    }
    const settings = (config?.config ?? {}) as LocalSandboxSettings;
    const requirements = [...(settings.pip_requirements ?? []), ...(request.pipRequirements ?? [])];
    let venvPython: string | undefined;
    if (request.language === 'python' && (settings.use_venv || requirements.length > 0)) {
      try {
        const venvDir = venvs.venvDir(request.organizationId, config?.id ?? 'default', settings.venv_name ?? 'venv');
        venvPython = await venvs.ensure(venvDir, requirements);
      } catch (error) {
        if (error instanceof VenvSetupError) return failed(functionName, 'SandboxSetupError', error.message);
        throw error;
      }
    }
    return runInLocalSandbox({
      language: request.language,
      sourceCode: request.sourceCode,
      functionName,
      args: request.args,
      env: { ...variables, ...request.env },
      timeoutMs: (settings.timeout ?? DEFAULT_LOCAL_TIMEOUT_SECONDS) * 1000,
      maxOutputBytes: SANDBOX_MAX_OUTPUT_BYTES,
      memoryLimitMb: SANDBOX_MEMORY_LIMIT_MB,
      ...(venvPython ? { venvPython } : {}),
      isolation: await sandboxIsolation(),
      ...(settings.allow_network === true ? { network: { egress: deps.egress, organizationId: request.organizationId } } : {}),
    });
  }

  return {
    /** Never throws for the tool's own failures or a sandbox that is not set up; only for infrastructure faults. */
    async run(request: ToolRunRequest): Promise<SandboxOutcome> {
      const configs = await SandboxConfig.query(db).forOrg(request.organizationId);
      const byType = new Map(configs.map((config) => [config.type, config]));
      const type: SandboxType =
        typeof request.requestedSandbox === 'string' && SANDBOX_TYPES.includes(request.requestedSandbox)
          ? (request.requestedSandbox as SandboxType)
          : byType.has('e2b')
            ? 'e2b'
            : 'local';
      const config = byType.get(type) ?? null;
      let outcome: SandboxOutcome;
      try {
        const variables = await configVariables(config);
        outcome = type === 'local' ? await runLocally(request, config, variables) : remoteSandboxError(request, type, config, variables);
      } catch (error) {
        if (!(error instanceof UnreadableSecretError)) throw error;
        outcome = failed(request.functionName, 'SandboxConfigurationError', error.message);
      }
      return { ...outcome, funcReturn: truncateToolReturn(outcome.funcReturn, request.returnCharLimit) };
    },
  };
}

export type ToolRunner = ReturnType<typeof createToolRunner>;
