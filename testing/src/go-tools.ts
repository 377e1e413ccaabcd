import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function goBinary(): string | undefined {
  const candidates = [...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'go')), '/usr/local/go/bin/go'];
  return candidates.find(isExecutable);
}

export type GoToolBuild = {
  /** What is being built, for the log and the errors. */
  name: string;
  /** `module@version` requirements added before the tools, to choose the versions of shared dependencies. */
  requires?: string[];
  /** Each program: its package at a pinned version, and the file it is built into. */
  programs: Array<{ packageAtVersion: string; output: string }>;
};

/**
 * Builds Go programs as tools of a throwaway module, from the Go module proxy. `go install pkg@version`
 * refuses modules with replace directives and names the binary after its package; a module of our own
 * builds either, into any file name, with dependency versions we can choose. Each binary is written under a
 * temporary name and renamed into place, so an interrupted build never leaves a broken binary in the cache.
 */
export function buildGoTools(build: GoToolBuild): void {
  const go = goBinary();
  if (!go) throw new Error(`${build.name} is missing and Go is not installed to build it.`);
  for (const { output } of build.programs) mkdirSync(path.dirname(output), { recursive: true });
  const module = mkdtempSync(path.join(os.tmpdir(), 'engram-go-build-'));
  const env = { ...process.env, CGO_ENABLED: '0' };
  const packageOf = (packageAtVersion: string) => packageAtVersion.slice(0, packageAtVersion.lastIndexOf('@'));
  const steps: string[][] = [
    ['mod', 'init', 'engram.local/go-tools'],
    ...(build.requires ?? []).map((requirement) => ['get', requirement]),
    ['get', '-tool', ...build.programs.map((program) => program.packageAtVersion)],
    ...build.programs.map((program) => ['build', '-o', `${program.output}.partial`, packageOf(program.packageAtVersion)]),
  ];
  try {
    for (const args of steps) {
      const step = spawnSync(go, args, { cwd: module, env, stdio: ['ignore', 'inherit', 'inherit'] });
      if (step.status !== 0) throw new Error(`Building ${build.name} failed at \`go ${args.join(' ')}\` (exit ${step.status ?? step.signal}).`);
    }
    for (const { output } of build.programs) renameSync(`${output}.partial`, output);
  } finally {
    for (const { output } of build.programs) rmSync(`${output}.partial`, { force: true });
    rmSync(module, { recursive: true, force: true });
  }
}
