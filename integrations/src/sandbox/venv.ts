import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runBounded, sandboxEnvironment, type BoundedRun } from './child-process.js';

export type PipRequirement = { name: string; version?: string | null | undefined };

/** Creating the venv or installing into it failed; the message says why, in words a tool author can act on. */
export class VenvSetupError extends Error {
  constructor(
    readonly kind: 'invalid_setting' | 'venv_failed' | 'install_failed',
    message: string,
  ) {
    super(message);
    this.name = 'VenvSetupError';
  }
}

const PACKAGE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._,-]+\])?$/;
const PACKAGE_VERSION = /^[A-Za-z0-9.*+!_-]+$/;
const VENV_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** A venv name becomes a directory, so it must be a plain name. */
export function isValidVenvName(name: string): boolean {
  return VENV_NAME.test(name) && name !== '.' && name !== '..';
}

/**
 * `name` or `name==version`. Names and versions are checked because they become pip's arguments: a name
 * like `--index-url=…` must not turn into an option.
 */
function pipSpec(requirement: PipRequirement): string {
  if (!PACKAGE_NAME.test(requirement.name)) throw new VenvSetupError('invalid_setting', `'${requirement.name}' is not a valid pip package name`);
  if (!requirement.version) return requirement.name;
  if (!PACKAGE_VERSION.test(requirement.version)) {
    throw new VenvSetupError('invalid_setting', `'${requirement.version}' is not a valid version for pip package '${requirement.name}'`);
  }
  return `${requirement.name}==${requirement.version}`;
}

/** Without a package index, pip fails within a few seconds instead of retrying for minutes. */
const PIP_NETWORK_ARGS = ['--timeout', '5', '--retries', '0'];
const VENV_CREATE_TIMEOUT_MS = 120_000;
const PIP_INSTALL_TIMEOUT_MS = 600_000;
const SETUP_OUTPUT_BYTES = 1024 * 1024;
/** Which requirements a venv has had installed, so a call with nothing new starts no pip. */
const INSTALLED_MARKER = 'engram-requirements.json';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

function lastLines(run: BoundedRun, count: number): string {
  return `${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-count).join('\n');
}

function failure(run: BoundedRun): string | null {
  if (run.spawnError) return run.spawnError.message;
  if (run.timedOut) return 'timed out';
  if (run.exitCode !== 0) return lastLines(run, 5) || `exited with code ${run.exitCode}`;
  return null;
}

export type VenvManager = ReturnType<typeof createVenvManager>;

/**
 * Per-sandbox-config virtualenvs under one root directory, each at `<root>/<organization>/<config>/<venv name>`.
 * Work on one venv is serialized within the process; a new venv is built beside its final place and renamed
 * into it, so a half-built venv is never used.
 */
export function createVenvManager(options: { root: string }) {
  const pending = new Map<string, Promise<unknown>>();

  function serialized<T>(venvDir: string, work: () => Promise<T>): Promise<T> {
    const previous = pending.get(venvDir) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => {});
    pending.set(venvDir, settled);
    void settled.then(() => {
      if (pending.get(venvDir) === settled) pending.delete(venvDir);
    });
    return next;
  }

  async function pipInstall(venvDir: string, specs: string[]): Promise<void> {
    if (specs.length === 0) return;
    const run = await runBounded({
      command: path.join(venvDir, 'bin', 'python'),
      args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', ...PIP_NETWORK_ARGS, ...specs],
      cwd: venvDir,
      // pip runs packages' build scripts, so it gets the sandbox's environment, not the server's.
      env: sandboxEnvironment(venvDir, {}),
      stdin: '',
      timeoutMs: PIP_INSTALL_TIMEOUT_MS,
      maxOutputBytes: SETUP_OUTPUT_BYTES,
    });
    const reason = failure(run);
    if (reason) {
      throw new VenvSetupError('install_failed', `pip could not install ${specs.join(', ')} (is a package index reachable from this server?): ${reason}`);
    }
  }

  async function installedSpecs(venvDir: string): Promise<string[]> {
    try {
      return JSON.parse(await readFile(path.join(venvDir, INSTALLED_MARKER), 'utf8')) as string[];
    } catch {
      return [];
    }
  }

  async function build(venvDir: string, specs: string[]): Promise<void> {
    await mkdir(path.dirname(venvDir), { recursive: true });
    const staging = `${venvDir}.building-${randomBytes(4).toString('hex')}`;
    try {
      const run = await runBounded({
        command: 'python3',
        args: ['-m', 'venv', staging],
        cwd: path.dirname(venvDir),
        env: sandboxEnvironment(path.dirname(venvDir), {}),
        stdin: '',
        timeoutMs: VENV_CREATE_TIMEOUT_MS,
        maxOutputBytes: SETUP_OUTPUT_BYTES,
      });
      const reason = failure(run);
      if (reason) throw new VenvSetupError('venv_failed', `python3 -m venv failed: ${reason}`);
      await pipInstall(staging, specs);
      await writeFile(path.join(staging, INSTALLED_MARKER), JSON.stringify(specs));
      await rename(staging, venvDir).catch((error: NodeJS.ErrnoException) => {
        // Another process built the same venv meanwhile; theirs is as good as ours.
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  return {
    venvDir(organizationId: string, sandboxConfigId: string, venvName: string): string {
      if (!isValidVenvName(venvName)) throw new VenvSetupError('invalid_setting', `'${venvName}' is not a valid venv name`);
      return path.join(options.root, organizationId, sandboxConfigId, venvName);
    },

    /** The venv's python, creating the venv and installing whatever of `requirements` it lacks. */
    async ensure(venvDir: string, requirements: PipRequirement[]): Promise<string> {
      const specs = [...new Set(requirements.map(pipSpec))].sort();
      return serialized(venvDir, async () => {
        const python = path.join(venvDir, 'bin', 'python');
        if (!(await exists(python))) {
          await build(venvDir, specs);
          return python;
        }
        const installed = await installedSpecs(venvDir);
        const missing = specs.filter((spec) => !installed.includes(spec));
        await pipInstall(venvDir, missing);
        if (missing.length > 0) await writeFile(path.join(venvDir, INSTALLED_MARKER), JSON.stringify([...installed, ...missing].sort()));
        return python;
      });
    },

    /** Deletes the venv and builds it again with exactly `requirements`. */
    async recreate(venvDir: string, requirements: PipRequirement[]): Promise<string> {
      const specs = [...new Set(requirements.map(pipSpec))].sort();
      return serialized(venvDir, async () => {
        await rm(venvDir, { recursive: true, force: true });
        await build(venvDir, specs);
        return path.join(venvDir, 'bin', 'python');
      });
    },
  };
}
