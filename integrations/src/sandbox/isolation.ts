import { spawn } from 'node:child_process';
import { chown, lstat, readlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * How local tools are isolated from the worker. `bubblewrap`: a fresh user, mount, pid, ipc, uts and
 * network namespace holding only system binaries, the tool's virtualenv and a scratch directory, run as
 * an unprivileged uid; a tool allowed the network reaches it only through the egress proxy in its scratch
 * directory. `host`: the worker's own user, only when an operator set
 * ENGRAM_UNSAFE_LOCAL_TOOLS=true. `refused`: namespaces are unavailable and nobody allowed the unsafe path,
 * so tools do not run at all — there is never a silent fallback.
 */
export type SandboxIsolation =
  | { kind: 'bubblewrap'; bwrapPath: string; dropToUid: number | null; systemMounts: string[] }
  | { kind: 'host'; warning: string }
  | { kind: 'refused'; reason: string };

/** `nobody`: owns nothing on the machine. */
export const SANDBOX_UID = 65534;

/** Processes a tool may have at once (its threads included): enough for a pool of workers, not for a fork bomb. */
export const SANDBOX_MAX_PROCESSES = 64;

/** Largest file a tool may write into its scratch directory. */
const SANDBOX_MAX_FILE_BYTES = 64 * 1024 * 1024;

const SANDBOX_MAX_OPEN_FILES = 256;

/**
 * What of /etc a tool may need: TLS roots and name resolution (for tools allowed the network), the time zone,
 * and the dynamic linker's cache (a public index of /usr's libraries; without it every program start probes
 * the library directories one by one).
 */
const READABLE_ETC = ['/etc/ssl', '/etc/ca-certificates', '/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/localtime', '/etc/alternatives', '/etc/ld.so.cache'];

export type IsolationOptions = {
  /** ENGRAM_UNSAFE_LOCAL_TOOLS: run tools without namespaces where the kernel refuses them. */
  allowUnsafeLocalTools: boolean;
  bwrapPath?: string;
};

/** `/bin`, `/lib`, … as they are on this machine: links where /usr is merged, read-only mounts where not. */
async function systemMountArgs(): Promise<string[]> {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    const stat = await lstat(dir).catch(() => null);
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push('--symlink', await readlink(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  for (const entry of READABLE_ETC) args.push('--ro-bind-try', entry, entry);
  const nodePrefix = path.dirname(path.dirname(process.execPath));
  if (!process.execPath.startsWith('/usr/')) args.push('--ro-bind', nodePrefix, nodePrefix);
  return args;
}

/** As whom bubblewrap starts: Node drops root to `nobody` itself (setgroups, setgid, setuid before exec), one program start fewer than setpriv. */
function runAs(uid: number | null): { uid?: number; gid?: number } {
  return uid === null ? {} : { uid, gid: uid };
}

function probe(command: string, args: string[], as: { uid?: number; gid?: number }): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, ...as });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', (error) => resolve({ ok: false, detail: error.message }));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, detail: stderr.trim() || `exit code ${code}` });
    });
  });
}

/**
 * Finds out once (at start) whether this machine can sandbox tools: it starts bubblewrap with every
 * namespace the real runs use, as the uid they use. Root starts it as `nobody`; any other user is
 * already unprivileged and is mapped to `nobody` inside the namespace.
 */
export async function detectSandboxIsolation(options: IsolationOptions): Promise<SandboxIsolation> {
  const bwrapPath = options.bwrapPath ?? 'bwrap';
  const dropToUid = process.getuid?.() === 0 ? SANDBOX_UID : null;
  const systemMounts = await systemMountArgs();
  const args = ['--unshare-all', '--die-with-parent', ...systemMounts, '--proc', '/proc', '--dev', '/dev', '--', '/usr/bin/true'];
  const result = await probe(bwrapPath, args, runAs(dropToUid));
  if (result.ok) return { kind: 'bubblewrap', bwrapPath, dropToUid, systemMounts };
  if (options.allowUnsafeLocalTools) {
    return {
      kind: 'host',
      warning: `Local tools run WITHOUT a sandbox, as the worker's own user (ENGRAM_UNSAFE_LOCAL_TOOLS=true): bubblewrap could not start (${result.detail})`,
    };
  }
  return {
    kind: 'refused',
    reason:
      `the local tool sandbox is unavailable: bubblewrap could not create its namespaces (${result.detail}). ` +
      'Install bubblewrap and allow unprivileged user namespaces, or set ENGRAM_UNSAFE_LOCAL_TOOLS=true to run tools unsandboxed as the worker user',
  };
}

/** The one line a process says at start about how it runs local tools, at the level it deserves. */
export function describeSandboxIsolation(isolation: SandboxIsolation): { level: 'INFO' | 'WARN' | 'ERROR'; message: string } {
  switch (isolation.kind) {
    case 'bubblewrap':
      return {
        level: 'INFO',
        message: `Local tools run in the bubblewrap sandbox: own namespaces, as uid ${SANDBOX_UID}, no network unless a sandbox config allows it, and then only through the egress policy`,
      };
    case 'host':
      return { level: 'WARN', message: isolation.warning };
    case 'refused':
      return { level: 'ERROR', message: `Local tools are refused: ${isolation.reason}` };
  }
}

export type SandboxedLaunch = {
  command: string;
  args: string[];
  workDir: string;
  /** Read-only directories the tool needs besides the system (its virtualenv). */
  readOnly: string[];
  cpuSeconds: number;
};

export type SandboxedCommand = { command: string; args: string[]; uid?: number; gid?: number };

/**
 * The command line that runs `launch` inside the sandbox `isolation` describes: bubblewrap, started as
 * `nobody` when the worker is root, then prlimit inside the namespaces, then the tool's runtime — three
 * program starts, each of which costs time on every call.
 */
export async function sandboxedCommand(isolation: Extract<SandboxIsolation, { kind: 'bubblewrap' }>, launch: SandboxedLaunch): Promise<SandboxedCommand> {
  if (isolation.dropToUid !== null) await chown(launch.workDir, isolation.dropToUid, isolation.dropToUid);
  const insideUid = isolation.dropToUid === null ? ['--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID)] : [];
  const args = [
    // The network namespace too, always: a tool allowed the network goes through the egress proxy's socket.
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    ...insideUid,
    '--hostname',
    'sandbox',
    ...isolation.systemMounts,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...launch.readOnly.flatMap((dir) => ['--ro-bind', dir, dir]),
    '--bind',
    launch.workDir,
    launch.workDir,
    '--chdir',
    launch.workDir,
    // The root holds only mount points: read-only, so the scratch directory (and a private /tmp) is all a tool can write.
    '--remount-ro',
    '/',
    '--',
    '/usr/bin/prlimit',
    `--nproc=${SANDBOX_MAX_PROCESSES}`,
    `--cpu=${launch.cpuSeconds}`,
    `--fsize=${SANDBOX_MAX_FILE_BYTES}`,
    `--nofile=${SANDBOX_MAX_OPEN_FILES}`,
    '--',
    launch.command,
    ...launch.args,
  ];
  return { command: isolation.bwrapPath, args, ...runAs(isolation.dropToUid) };
}
