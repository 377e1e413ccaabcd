import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './federation.js';

/* ESLint does not look at the console folders; these rules keep the Module Federation singletons single. */

function sources(directory: string): string[] {
  return readdirSync(path.join(repoRoot, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts'))
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)));
}

const importsOf = (file: string) => [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/\bfrom\s+'([^']+)'|\bimport\('([^']+)'\)/g)].map((match) => match[1] ?? match[2] ?? '');

describe('console import rules', () => {
  const apps = [...sources('console-shell/src'), ...sources('console-remotes/agents/src')];

  it('reach react-router and Mantine only through the kit', () => {
    const direct = apps.flatMap((file) => importsOf(file).filter((request) => /^(react-router|@mantine\/)/.test(request)).map((request) => `${file}: ${request}`));
    expect(direct).toEqual([]);
  });

  it('keep remotes apart from the shell and from each other, and the kit apart from both', () => {
    const crossing = [
      ...sources('console-remotes/agents/src').flatMap((file) => importsOf(file).filter((request) => request.includes('console-shell')).map((request) => `${file}: ${request}`)),
      ...sources('console-shell/src').flatMap((file) => importsOf(file).filter((request) => request.includes('console-remotes') || request.startsWith('@engram/console-agents')).map((request) => `${file}: ${request}`)),
      ...sources('console-remotes/kit/src').flatMap((file) => importsOf(file).filter((request) => /console-(shell|agents)|\.\.\/\.\.\/\.\./.test(request)).map((request) => `${file}: ${request}`)),
    ];
    expect(crossing).toEqual([]);
  });

  it('never import a backend workspace into the browser', () => {
    const backend = [...apps, ...sources('console-remotes/kit/src')].flatMap((file) =>
      importsOf(file).filter((request) => /^@engram\/(api|db|core|activities|workflows|temporal|testing)\b/.test(request)).map((request) => `${file}: ${request}`),
    );
    expect(backend).toEqual([]);
  });
});
