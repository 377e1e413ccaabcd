import type { Knex } from 'knex';
import { checkGrepArgs, checkOpenFilesArgs, describeOpenedFiles, grepFiles, renderFileView, type AgentSnapshot, type FileView } from '@engram/core';
import { FileAgent, closeOpenFiles, fileViewLimitsOfAgent, markFilesAccessed, openFileForAgent } from '@engram/db';
import { runWithTimeLimit, TimeLimitExceededError } from './time-limit.js';

export const INLINE_FILE_TOOL_NAMES: readonly string[] = ['open_files', 'grep_files'];

export type FileToolOutcome = { status: 'success' | 'error'; funcResponse: string; memoryChanged: boolean };

type AgentFileRow = { fileId: string; sourceId: string; fileName: string; content: string | null };

const AVAILABLE_NAMES_SHOWN = 20;

/** Searching 200 MB with a sane pattern takes well under this. */
const GREP_TIME_LIMIT_MS = 5000;

function failure(name: string, message: string): FileToolOutcome {
  return { status: 'error', funcResponse: `Error executing function ${name}: ${message}`, memoryChanged: false };
}

/** The files of the agent's attached folders, with their parsed text (null while ingestion is still parsing). */
async function agentFiles(trx: Knex, snapshot: AgentSnapshot, fileNames?: string[]): Promise<AgentFileRow[]> {
  const rows = await FileAgent.query(trx)
    .forOrg(snapshot.organizationId)
    .join('files', 'files.id', 'files_agents.file_id')
    .where('files_agents.agent_id', snapshot.id)
    .modify((builder) => {
      if (fileNames) builder.whereIn('files_agents.file_name', fileNames);
    })
    .orderBy('files_agents.file_name')
    .select('files_agents.file_id', 'files_agents.source_id', 'files_agents.file_name', 'files.content');
  return rows as unknown as AgentFileRow[];
}

async function availableNames(trx: Knex, snapshot: AgentSnapshot): Promise<string> {
  const rows = await FileAgent.query(trx)
    .forOrg(snapshot.organizationId)
    .where({ agentId: snapshot.id })
    .orderBy('fileName')
    .limit(AVAILABLE_NAMES_SHOWN + 1)
    .select('fileName');
  if (rows.length === 0) return 'No files are attached.';
  const names = rows.slice(0, AVAILABLE_NAMES_SHOWN).map((row) => row.fileName);
  return `Available files: ${names.join(', ')}${rows.length > AVAILABLE_NAMES_SHOWN ? ', …' : ''}`;
}

/**
 * open_files: shows the requested files (or line ranges of them) in the agent's prompt, closing the least
 * recently used others past the agent's limit. Nothing changes unless every request can be served.
 */
export async function openFiles(trx: Knex, snapshot: AgentSnapshot, args: Record<string, unknown>, now: Date): Promise<FileToolOutcome> {
  const { organizationId, id: agentId } = snapshot;
  const limits = await fileViewLimitsOfAgent(trx, organizationId, agentId);
  if (!limits) return failure('open_files', `agent ${agentId} no longer exists`);
  const checked = checkOpenFilesArgs(args, limits.maxFilesOpen);
  if (!checked.ok) return failure('open_files', checked.error);
  const { requests, closeAllOthers } = checked.value;

  const files = new Map((await agentFiles(trx, snapshot, requests.map((request) => request.fileName))).map((file) => [file.fileName, file]));
  const planned: Array<{ file: AgentFileRow; view: FileView }> = [];
  for (const request of requests) {
    const file = files.get(request.fileName);
    if (!file) return failure('open_files', `File '${request.fileName}' not found. ${await availableNames(trx, snapshot)}`);
    if (file.content === null) return failure('open_files', `File '${request.fileName}' is still being processed; try again shortly`);
    const rendered = renderFileView(file.fileName, file.content, { ...request, charLimit: limits.perFileViewWindowCharLimit });
    if (!rendered.ok) return failure('open_files', rendered.error);
    planned.push({ file, view: rendered.view });
  }

  const requestedIds = planned.map(({ file }) => file.fileId);
  const closedByCloseAll = closeAllOthers ? await closeOpenFiles(trx, organizationId, agentId, requestedIds) : [];
  const closedByLimit: string[] = [];
  for (const { file, view } of planned) {
    const target = { id: file.fileId, sourceId: file.sourceId, fileName: file.fileName };
    closedByLimit.push(...(await openFileForAgent(trx, organizationId, agentId, target, view, limits.maxFilesOpen, now)));
  }
  return { status: 'success', funcResponse: describeOpenedFiles(requests, closedByCloseAll, closedByLimit), memoryChanged: true };
}

/** grep_files: matching lines across the agent's files. The prompt does not change, only which files were used last. */
export async function grepAgentFiles(trx: Knex, snapshot: AgentSnapshot, args: Record<string, unknown>, now: Date): Promise<FileToolOutcome> {
  const checked = checkGrepArgs(args);
  if (!checked.ok) return failure('grep_files', checked.error);
  const files = await agentFiles(trx, snapshot);
  let result: ReturnType<typeof grepFiles>;
  try {
    result = runWithTimeLimit(() => grepFiles(files, checked.value), GREP_TIME_LIMIT_MS);
  } catch (error) {
    if (!(error instanceof TimeLimitExceededError)) throw error;
    return failure('grep_files', `the search ${error.message} and was stopped; use a simpler pattern (nested repetition such as (a+)+ backtracks without end)`);
  }
  if (!result.ok) return failure('grep_files', result.error);
  await markFilesAccessed(trx, snapshot.organizationId, snapshot.id, result.value.matchedFileIds, now);
  return { status: 'success', funcResponse: result.value.text, memoryChanged: false };
}
