import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

/** The server workspaces and scripts: Node code, linted with type information. */
const serverFolders = ['core', 'db', 'integrations', 'activities', 'workflows', 'temporal', 'api', 'testing', 'scripts', 'bench'];

/** Modules that would make workflow code nondeterministic or that the workflow sandbox rejects. */
const forbiddenInWorkflows = [
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  '@engram/db',
  '@engram/db/*',
  '@engram/api',
  '@engram/api/*',
  '@engram/temporal',
  '@engram/temporal/*',
  '@engram/integrations/*',
  'knex',
  'objection',
  'pg',
  'openai',
  '@anthropic-ai/sdk',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];

/** One `no-restricted-imports` entry per forbidden package: the package itself and its subpaths. */
const forbidPackages = (packages, message) => ({
  paths: packages.map((name) => ({ name, message })),
  patterns: [{ group: packages.map((name) => `${name}/*`), message }],
});

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'console-shell/**', 'console-remotes/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Type-aware rules over the server side: a promise nobody awaits (in an activity, a stream handler, a route) fails
    // silently. Each file is checked against the nearest tsconfig.json (the root one, or bench/tsconfig.json).
    files: [`{${serverFolders.join(',')}}/**/*.ts`, '*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    ignores: ['workflows/**/*.test.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: forbiddenInWorkflows.filter((name) => !name.endsWith('/*')).map((name) => ({
            name,
            message: 'Workflow code must stay deterministic: do I/O in an activity.',
          })),
          patterns: [
            {
              group: forbiddenInWorkflows.filter((name) => name.endsWith('/*')),
              message: 'Workflow code must stay deterministic: do I/O in an activity.',
            },
            {
              group: ['@engram/activities', '@engram/activities/*'],
              allowTypeImports: true,
              message: 'Workflows may import activities only as types (proxyActivities<typeof …>).',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'No I/O in workflows: call an activity.' },
        { name: 'setInterval', message: 'Use sleep() or condition() from @temporalio/workflow.' },
        { name: 'process', message: 'Workflows cannot read the environment.' },
      ],
    },
  },
  {
    // The API reaches providers, MCP servers, sandboxes and the archival store through @engram/integrations;
    // @engram/activities is the worker's entry points, registered by temporal/ alone.
    files: ['api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        forbidPackages(['@engram/activities', '@engram/workflows', '@temporalio/worker', '@temporalio/activity'], 'The API imports @engram/integrations and @engram/temporal (client side), never the worker side.'),
      ],
    },
  },
  {
    // Shared by the API process and the worker: nothing here may assume it runs inside an activity.
    files: ['integrations/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        forbidPackages(
          ['@engram/activities', '@engram/api', '@engram/temporal', '@engram/workflows', '@temporalio/activity', '@temporalio/worker', '@temporalio/workflow'],
          'Integrations are shared by the API and the worker: no activity context, no API or worker code.',
        ),
      ],
    },
  },
);
