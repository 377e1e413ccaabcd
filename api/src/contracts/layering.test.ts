import { lintFixture, lintProblems } from '@engram/testing/architecture/lint';
import { describe, expect, it } from 'vitest';

describe('the contracts and services layering lint', () => {
  it('rejects a service or a contract importing a route module', async () => {
    for (const [file, line] of [
      ['api/src/services/agents/planted.ts', "import { agentRoutes } from '../../routes/v1/agents/agents.js';"],
      ['api/src/contracts/v1/planted.ts', "import { agentRoutes } from '../../routes/v1/agents/agents.js';"],
      ['api/src/services/planted.ts', "import { agentRoutes } from '../routes/v1/agents/agents.js';"],
    ] as const) {
      const violations = await lintFixture(file, `${line}\nexport const used = [agentRoutes];\n`);
      expect(violations.join('\n'), `${file}: ${line}`).toMatch(/Services and contracts never import routes/);
    }
  });

  it('still forbids the worker side there, and allows contracts in services', async () => {
    expect((await lintFixture('api/src/services/planted.ts', "import { createWorker } from '@engram/temporal/worker';\nexport const used = [createWorker];\n")).join('\n')).toMatch(/never the worker side/);
    expect(await lintFixture('api/src/services/agents/planted.ts', "import { AgentResponse } from '../../contracts/v1/agents.js';\nexport const used = [AgentResponse];\n")).toEqual([]);
  });

  it('passes on the real services and contracts', async () => {
    expect(await lintProblems(['api/src/services', 'api/src/contracts'])).toEqual([]);
  });
});
