import { lintFixture } from '@engram/testing/architecture/lint';
import { describe, expect, it } from 'vitest';

/*
 * The console's import rules live in eslint.config.js (consoleBoundary); these fixtures prove they catch what they are
 * there to catch. `npm run lint` checks the real folders.
 */

const SHELL = 'console-shell/src/pages/example.tsx';
const REMOTE = 'console-remotes/agents/src/workspace/example.tsx';
const OTHER_REMOTE = 'console-remotes/billing/src/example.tsx';
const KIT = 'console-remotes/kit/src/ui/example.tsx';

async function expectRejected(file: string, imports: string[], reason: RegExp) {
  for (const line of imports) {
    expect((await lintFixture(file, `${line}\n`)).join('\n'), `${file}: ${line}`).toMatch(reason);
  }
}

describe('the console import lint', () => {
  it('keeps remotes apart from the shell and from each other', async () => {
    const crossing = [
      "import { App } from '@engram/console-shell';",
      "import { RemoteMount } from '../../../../console-shell/src/remotes/remote-mount.js';",
      "import { AgentWorkspace } from '@engram/console-agents/workspace';",
      "import { AgentWorkspace } from '../../../console-remotes/agents/src/workspace/workspace.js';",
    ];
    await expectRejected(REMOTE, crossing.slice(0, 2), /never the shell or another remote|never by relative path/);
    await expectRejected(OTHER_REMOTE, crossing, /never the shell or another remote|never by relative path/);
  });

  it('keeps the shell from importing a remote: it mounts them through the manifest', async () => {
    await expectRejected(
      SHELL,
      ["import agents from '@engram/console-agents';", "import { AgentWorkspace } from '../../../console-remotes/agents/src/workspace/workspace.js';"],
      /through the manifest|never by relative path/,
    );
  });

  it('keeps the kit apart from the shell and every remote', async () => {
    await expectRejected(
      KIT,
      ["import { App } from '@engram/console-shell';", "import agents from '@engram/console-agents';", "import { x } from '../../../../console-shell/src/app.js';"],
      /imports none of them|never by relative path/,
    );
  });

  it('lets the shell and remotes reach react-router and Mantine only through the kit', async () => {
    const direct = ["import { Link } from 'react-router';", "import { Button } from '@mantine/core';", "import { useDisclosure } from '@mantine/hooks';"];
    await expectRejected(SHELL, direct, /through @engram\/console-kit/);
    await expectRejected(REMOTE, direct, /through @engram\/console-kit/);
    expect(await lintFixture(KIT, "import { Button } from '@mantine/core';\nimport { Link } from 'react-router';\n")).toEqual([]);
  });

  it('never lets a server workspace or a Node built-in into the browser', async () => {
    const server = [
      "import { createDatabase } from '@engram/db';",
      "import { PERMISSIONS } from '@engram/api/http/permissions';",
      "import { compileSystemPrompt } from '@engram/core/prompt/compile-system';",
      "import { startTestStack } from '@engram/testing';",
      "import { readFileSync } from 'node:fs';",
    ];
    for (const file of [SHELL, REMOTE, KIT]) await expectRejected(file, server, /runs in the browser/);
  });

  it('allows the kit, React, icons and stylesheets', async () => {
    const allowed = [
      "import '@mantine/core/styles.css';",
      "import { useState } from 'react';",
      "import { Button, useV1 } from '@engram/console-kit';",
      "import { Textarea } from '@engram/console-kit/widgets';",
      "import { IconRobot } from '@tabler/icons-react';",
      "import { ChatPanel } from './chat-panel.js';",
    ].join('\n');
    expect(await lintFixture(SHELL, allowed)).toEqual([]);
    expect(await lintFixture(REMOTE, allowed)).toEqual([]);
  });

  it('lets tests, which run in Node, compare the console with the server', async () => {
    expect(await lintFixture('console-remotes/agents/src/access/example.test.ts', "import { PERMISSIONS } from '@engram/api/http/permissions';\n")).toEqual([]);
  });
});

describe('the console hooks lint', () => {
  it('applies the React hooks rules to console code', async () => {
    const conditionalHook = "import { useState } from 'react';\nexport function Panel({ open }: { open: boolean }) {\n  if (open) useState(0);\n  return null;\n}\n";
    expect((await lintFixture(REMOTE, conditionalHook)).join('\n')).toMatch(/called conditionally/);
  });
});
