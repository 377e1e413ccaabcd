import { createFetchWebpage, createWebSearch, type WebSearchConfig } from '../web/index.js';
import type { EgressPolicy } from '../egress/index.js';
import type { ToolRunner } from './tool-runner.js';

export type BuiltinToolResult = { status: 'success' | 'error'; funcResponse: string; stdout: string[]; stderr: string[] };

export type BuiltinToolDeps = {
  /** The operator's search provider; null when none is configured (web_search then says which variable to set). */
  webSearch: WebSearchConfig;
  egress: Pick<EgressPolicy, 'fetchFor'>;
  runner: ToolRunner;
};

/** run_code's languages and how each runs in the tool sandbox: python as-is, JavaScript through the TypeScript runner. */
const RUN_CODE_LANGUAGES: Record<string, 'python' | 'typescript'> = {
  python: 'python',
  py: 'python',
  js: 'typescript',
  javascript: 'typescript',
  ts: 'typescript',
  typescript: 'typescript',
};

/** The function the sandbox calls: the program runs as a script inside it, printing what it prints. */
const PYTHON_RUNNER = `def __engram_run_code(code: str):
    """Runs the program as the __main__ module."""
    exec(compile(code, "<run_code>", "exec"), {"__name__": "__main__"})
`;
/** JavaScript and TypeScript programs run as the module itself; the sandbox then calls this empty function. */
const SCRIPT_RUNNER_FUNCTION = '__engram_run_code';

/**
 * Letta's `letta_builtin` tools: web_search through the operator's provider, fetch_webpage through the tenants'
 * egress policy, run_code in the organization's tool sandbox with its limits.
 */
export function createBuiltinTools(deps: BuiltinToolDeps) {
  const webSearch = createWebSearch({ config: deps.webSearch });
  const fetchWebpage = createFetchWebpage({ egress: deps.egress });

  async function runCode(organizationId: string, args: Record<string, unknown>, returnCharLimit: number): Promise<BuiltinToolResult> {
    const code = typeof args.code === 'string' ? args.code : null;
    const language = typeof args.language === 'string' ? RUN_CODE_LANGUAGES[args.language.trim().toLowerCase()] : undefined;
    if (code === null) return { status: 'error', funcResponse: 'Error executing function run_code: the argument code is required', stdout: [], stderr: [] };
    if (!language) {
      return { status: 'error', funcResponse: `Error executing function run_code: language must be python, js or ts, not ${JSON.stringify(args.language)}`, stdout: [], stderr: [] };
    }
    const outcome = await deps.runner.run({
      organizationId,
      language,
      sourceCode: language === 'python' ? PYTHON_RUNNER : `${code}\nfunction ${SCRIPT_RUNNER_FUNCTION}(): void {}\n`,
      functionName: SCRIPT_RUNNER_FUNCTION,
      args: language === 'python' ? { code } : {},
      env: {},
      pipRequirements: null,
      npmRequirements: null,
      requestedSandbox: 'local',
      returnCharLimit,
    });
    const report = {
      stdout: outcome.stdout.join(''),
      stderr: outcome.stderr.join(''),
      error: outcome.status === 'error' ? outcome.funcReturn : null,
    };
    return { status: outcome.status, funcResponse: JSON.stringify(report), stdout: outcome.stdout, stderr: outcome.stderr };
  }

  return async function executeBuiltinTool(input: {
    organizationId: string;
    toolName: string;
    arguments: Record<string, unknown>;
    returnCharLimit: number;
  }): Promise<BuiltinToolResult> {
    const { organizationId, toolName, arguments: args } = input;
    if (toolName === 'run_code') return runCode(organizationId, args, input.returnCharLimit);
    const outcome =
      toolName === 'web_search'
        ? await webSearch(args)
        : toolName === 'fetch_webpage'
          ? await fetchWebpage(organizationId, args)
          : { status: 'error' as const, funcResponse: `Error: ${toolName} is not one of this server's built-in tools` };
    return { ...outcome, stdout: [], stderr: [] };
  };
}
