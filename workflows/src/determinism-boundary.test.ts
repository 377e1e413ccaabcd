import { lintFixture, lintProblems } from '@engram/testing/architecture/lint';
import { describe, expect, it } from 'vitest';

const ruleViolations = (code: string) => lintFixture('workflows/src/example.ts', code);

describe('the workflow determinism boundary lint', () => {
  it('rejects Node built-ins, database, SDK and provider modules in workflow code', async () => {
    for (const line of [
      "import { readFileSync } from 'node:fs';",
      "import crypto from 'crypto';",
      "import knex from 'knex';",
      "import { createDatabase } from '@engram/db';",
      "import OpenAI from 'openai';",
      "import { Client } from '@temporalio/client';",
    ]) {
      const violations = await ruleViolations(`${line}\nexport const used = [${line.match(/import \{? ?(\w+)/)?.[1]}];\n`);
      expect(violations.join('\n'), line).toMatch(/deterministic/);
    }
  });

  it('allows activities only as types', async () => {
    expect(await ruleViolations("import { createActivities } from '@engram/activities';\nexport const a = createActivities;\n"))
      .toEqual([expect.stringMatching(/only as types/)]);
    expect(
      await ruleViolations(
        "import type { Activities } from '@engram/activities';\nimport { proxyActivities } from '@temporalio/workflow';\nexport const a = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });\n",
      ),
    ).toEqual([]);
  });

  it('rejects ambient I/O globals', async () => {
    expect(await ruleViolations("export const load = () => fetch('http://example.test');\n")).toEqual([
      expect.stringMatching(/activity/),
    ]);
  });

  it('passes on the real workflows folder', async () => {
    expect(await lintProblems(['workflows/src'])).toEqual([]);
  });
});
