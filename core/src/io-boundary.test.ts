import { lintFixture, lintProblems } from '@engram/testing/architecture/lint';
import { describe, expect, it } from 'vitest';

const ruleViolations = (code: string) => lintFixture('core/src/example.ts', code);

describe('the core purity lint', () => {
  it('rejects Node built-ins, I/O packages and the other workspaces in core', async () => {
    for (const [line, name] of [
      ["import { readFileSync } from 'node:fs';", 'readFileSync'],
      ["import path from 'path';", 'path'],
      ["import knex from 'knex';", 'knex'],
      ["import OpenAI from 'openai';", 'OpenAI'],
      ["import { Client } from '@modelcontextprotocol/sdk/client/index.js';", 'Client'],
      ["import { createDatabase } from '@engram/db';", 'createDatabase'],
      ["import { startTestStack } from '@engram/testing';", 'startTestStack'],
      ["import { proxyActivities } from '@temporalio/workflow';", 'proxyActivities'],
    ]) {
      const violations = await ruleViolations(`${line}\nexport const used = [${name}];\n`);
      expect(violations.join('\n'), line).toMatch(/Core is pure/);
    }
  });

  it('allows zod and its own files', async () => {
    expect(await ruleViolations("import { z } from 'zod';\nimport { DEFAULT_BLOCK_LIMIT } from './prompt/compile-system.js';\nexport const used = [z, DEFAULT_BLOCK_LIMIT];\n")).toEqual([]);
  });

  it('rejects ambient I/O globals', async () => {
    expect(await ruleViolations("export const load = () => fetch('http://example.test');\nexport const env = () => process.env.HOME;\n")).toEqual([
      expect.stringMatching(/Core is pure/),
      expect.stringMatching(/Core is pure/),
    ]);
  });

  it('passes on the real core folder', async () => {
    expect(await lintProblems(['core/src'])).toEqual([]);
  });
});
