import { FILE_TOOL_NAMES, FILE_TOOL_TYPE, fileViewLimitsOf, renderFileView, type FileView, type FileViewLimits } from '@engram/core';
import type { Knex } from 'knex';
import { newId } from '../ids.js';
import { Agent } from '../models/agent.js';
import { FileAgent, SourceAgent, SourceFile } from '../models/source.js';
import { AgentTool, Tool } from '../models/tool.js';
import { recompileSystemMessage } from './system-message.js';
import { ensureBaseTools } from './base-tools.js';

/**
 * An agent's view of the files of its attached folders (`files_agents`): attaching and detaching folders,
 * opening and closing files with least-recently-used eviction past the agent's `max_files_open`, and keeping
 * the agent's system message in step with what is open. Every function expects a transaction: the row changes
 * and the recompiled prompt commit together.
 */

type FileToOpen = { id: string; sourceId: string; fileName: string };

/** The agent's file knobs; undefined when the agent is not in the organization. */
export async function fileViewLimitsOfAgent(db: Knex, organizationId: string, agentId: string): Promise<FileViewLimits | undefined> {
  const agent = await Agent.query(db)
    .forOrg(organizationId)
    .findById(agentId)
    .select('maxFilesOpen', 'perFileViewWindowCharLimit', 'llmConfig');
  if (!agent) return undefined;
  return fileViewLimitsOf({
    maxFilesOpen: agent.maxFilesOpen,
    perFileViewWindowCharLimit: agent.perFileViewWindowCharLimit,
    contextWindow: agent.llmConfig?.context_window,
  });
}

/**
 * Serializes changes to one agent's open files for the rest of the transaction, so concurrent openers (the
 * agent's own step, an ingestion finishing, an API call) cannot each see room for one more file and together
 * exceed the limit.
 */
async function lockAgentFiles(db: Knex, agentId: string): Promise<void> {
  await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`files_agents:${agentId}`]);
}

/**
 * Closes the least recently used open files past `maxFilesOpen`, never one of `keepFileIds` (the files being
 * opened now). Returns the names of the files it closed.
 */
async function closeLeastRecentlyUsed(
  db: Knex,
  organizationId: string,
  agentId: string,
  maxFilesOpen: number,
  keepFileIds: readonly string[],
): Promise<string[]> {
  const open = await FileAgent.query(db)
    .forOrg(organizationId)
    .where({ agentId, isOpen: true })
    .orderBy([{ column: 'lastAccessedAt', order: 'desc' }, { column: 'id', order: 'desc' }])
    .select('id', 'fileId', 'fileName');
  const kept = open.filter((row) => keepFileIds.includes(row.fileId));
  const others = open.filter((row) => !keepFileIds.includes(row.fileId));
  const evicted = others.slice(Math.max(0, maxFilesOpen - kept.length));
  if (evicted.length === 0) return [];
  await FileAgent.query(db)
    .forOrg(organizationId)
    .whereIn(
      'id',
      evicted.map((row) => row.id),
    )
    .patch({ isOpen: false, visibleContent: null, startLine: null, endLine: null });
  return evicted.map((row) => row.fileName);
}

/** Marks the file open with `view` (creating the agent's row for it if needed), without enforcing the limit. */
async function upsertOpenFile(db: Knex, organizationId: string, agentId: string, file: FileToOpen, view: FileView, now: Date): Promise<void> {
  const opened = {
    isOpen: true,
    visibleContent: view.visibleContent,
    startLine: view.startLine,
    endLine: view.endLine,
    lastAccessedAt: now,
    updatedAt: now,
  };
  await FileAgent.query(db)
    .insert({ id: newId('fileAgent'), organizationId, agentId, fileId: file.id, sourceId: file.sourceId, fileName: file.fileName, ...opened })
    .onConflict(['agentId', 'fileId'])
    .merge({ ...opened, fileName: file.fileName });
}

/**
 * Opens one file in one agent's view and closes the least recently used others past the limit. Returns the
 * names of the files closed to make room. The caller recompiles the agent's system message.
 */
export async function openFileForAgent(
  db: Knex,
  organizationId: string,
  agentId: string,
  file: FileToOpen,
  view: FileView,
  maxFilesOpen: number,
  now: Date,
): Promise<string[]> {
  await lockAgentFiles(db, agentId);
  await upsertOpenFile(db, organizationId, agentId, file, view, now);
  return closeLeastRecentlyUsed(db, organizationId, agentId, maxFilesOpen, [file.id]);
}

/**
 * Called by ingestion once a file's text is parsed: every agent attached to the file's folder gets the file
 * open at its top (evicting its least recently used files past its limit) and a recompiled system message.
 * Returns the ids of the agents whose view changed.
 */
export async function openFileInAttachedAgents(trx: Knex, organizationId: string, fileId: string, now: Date): Promise<string[]> {
  const file = await SourceFile.query(trx).forOrg(organizationId).findById(fileId).select('id', 'sourceId', 'fileName', 'content');
  if (!file || file.content === null) return [];
  const attached = await SourceAgent.query(trx)
    .forOrg(organizationId)
    .where({ sourceId: file.sourceId })
    // A fixed order, so two ingestions locking the same agents never wait on each other in a cycle.
    .orderBy('agentId')
    .select('agentId');
  const agentIds: string[] = [];
  for (const { agentId } of attached) {
    const limits = await fileViewLimitsOfAgent(trx, organizationId, agentId);
    if (!limits) continue;
    const rendered = renderFileView(file.fileName, file.content, { charLimit: limits.perFileViewWindowCharLimit });
    if (!rendered.ok) continue;
    await openFileForAgent(trx, organizationId, agentId, file, rendered.view, limits.maxFilesOpen, now);
    await recompileSystemMessage(trx, organizationId, agentId, now);
    agentIds.push(agentId);
  }
  return agentIds;
}

/**
 * Gives the agent the file tools (creating the organization's rows for them on first use). A custom tool that
 * took one of their names is left alone and not attached.
 */
async function attachFileTools(db: Knex, organizationId: string, agentId: string): Promise<void> {
  const baseTools = await ensureBaseTools(db, organizationId);
  const tools = FILE_TOOL_NAMES.flatMap((name) => baseTools.get(name) ?? []);
  if (tools.length === 0) return;
  await AgentTool.query(db)
    .insert(tools.map((tool) => ({ agentId, toolId: tool.id, organizationId })))
    .onConflict(['agentId', 'toolId'])
    .ignore();
}

async function detachFileTools(db: Knex, organizationId: string, agentId: string): Promise<void> {
  await AgentTool.query(db)
    .forOrg(organizationId)
    .where({ agentId })
    .whereIn('toolId', Tool.query(db).forOrg(organizationId).where({ toolType: FILE_TOOL_TYPE }).select('id'))
    .delete();
}

/**
 * Attaches a folder to an agent: a `files_agents` row per file, the newest parsed files open up to the agent's
 * limit (its older open files are closed first), the file tools, and a recompiled system message. Files still
 * being ingested start closed; ingestion opens them when their text is ready. Attaching again changes nothing
 * for files the agent already has. The caller has checked that both belong to the organization.
 */
export async function attachFolderToAgent(db: Knex, organizationId: string, agentId: string, sourceId: string, now: Date): Promise<void> {
  await lockAgentFiles(db, agentId);
  await SourceAgent.query(db).insert({ sourceId, agentId, organizationId }).onConflict(['sourceId', 'agentId']).ignore();
  const limits = await fileViewLimitsOfAgent(db, organizationId, agentId);
  if (!limits) return;
  const known = new Set(
    (await FileAgent.query(db).forOrg(organizationId).where({ agentId, sourceId }).select('fileId')).map((row) => row.fileId),
  );
  const files = (
    await SourceFile.query(db)
      .forOrg(organizationId)
      .where({ sourceId })
      .orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }])
      .select('id', 'sourceId', 'fileName', 'content')
  ).filter((file) => !known.has(file.id));
  const openedIds: string[] = [];
  const rows = files.map((file, index) => {
    const rendered =
      file.content !== null && openedIds.length < limits.maxFilesOpen
        ? renderFileView(file.fileName, file.content, { charLimit: limits.perFileViewWindowCharLimit })
        : undefined;
    const view = rendered?.ok ? rendered.view : undefined;
    if (view) openedIds.push(file.id);
    return {
      id: newId('fileAgent'),
      organizationId,
      agentId,
      fileId: file.id,
      sourceId,
      fileName: file.fileName,
      isOpen: view !== undefined,
      visibleContent: view?.visibleContent ?? null,
      startLine: view?.startLine ?? null,
      endLine: view?.endLine ?? null,
      // A millisecond apart, newest file last used: older files are evicted first, in a definite order.
      lastAccessedAt: new Date(now.getTime() - index),
    };
  });
  if (rows.length > 0) await FileAgent.query(db).insert(rows).onConflict(['agentId', 'fileId']).ignore();
  await closeLeastRecentlyUsed(db, organizationId, agentId, limits.maxFilesOpen, openedIds);
  await attachFileTools(db, organizationId, agentId);
  await recompileSystemMessage(db, organizationId, agentId, now);
}

/**
 * Detaches a folder: its files leave the agent's view, and with the last folder gone the file tools go too.
 * Returns false when the folder was not attached.
 */
export async function detachFolderFromAgent(db: Knex, organizationId: string, agentId: string, sourceId: string, now: Date): Promise<boolean> {
  await lockAgentFiles(db, agentId);
  const removed = await SourceAgent.query(db).forOrg(organizationId).where({ sourceId, agentId }).delete();
  await FileAgent.query(db).forOrg(organizationId).where({ agentId, sourceId }).delete();
  const remaining = await SourceAgent.query(db).forOrg(organizationId).where({ agentId }).resultSize();
  if (remaining === 0) await detachFileTools(db, organizationId, agentId);
  await recompileSystemMessage(db, organizationId, agentId, now);
  return removed > 0;
}

/**
 * Opens a file of an attached folder at its top (the `PATCH …/files/{id}/open` route). Returns the names of the
 * files closed to make room, or undefined when the agent does not have the file.
 */
export async function openAgentFile(
  db: Knex,
  organizationId: string,
  agentId: string,
  fileId: string,
  now: Date,
): Promise<string[] | undefined> {
  const row = await FileAgent.query(db).forOrg(organizationId).findOne({ agentId, fileId });
  const file = row && (await SourceFile.query(db).forOrg(organizationId).findById(fileId).select('id', 'sourceId', 'fileName', 'content'));
  const limits = await fileViewLimitsOfAgent(db, organizationId, agentId);
  if (!file || !limits) return undefined;
  const rendered = renderFileView(file.fileName, file.content ?? '', { charLimit: limits.perFileViewWindowCharLimit });
  if (!rendered.ok) return undefined;
  const closed = await openFileForAgent(db, organizationId, agentId, file, rendered.view, limits.maxFilesOpen, now);
  await recompileSystemMessage(db, organizationId, agentId, now);
  return closed;
}

/** Closes one file in the agent's view. Returns false when the agent does not have the file. */
export async function closeAgentFile(db: Knex, organizationId: string, agentId: string, fileId: string, now: Date): Promise<boolean> {
  await lockAgentFiles(db, agentId);
  const changed = await FileAgent.query(db)
    .forOrg(organizationId)
    .where({ agentId, fileId })
    .patch({ isOpen: false, visibleContent: null, startLine: null, endLine: null });
  if (changed === 0) return false;
  await recompileSystemMessage(db, organizationId, agentId, now);
  return true;
}

/**
 * Closes the agent's open files except `exceptFileIds`, and returns their names. Leaves recompiling the system
 * message to the caller (the agent loop does it once when its step closes).
 */
export async function closeOpenFiles(
  db: Knex,
  organizationId: string,
  agentId: string,
  exceptFileIds: readonly string[] = [],
): Promise<string[]> {
  await lockAgentFiles(db, agentId);
  const closed = await FileAgent.query(db)
    .forOrg(organizationId)
    .where({ agentId, isOpen: true })
    .whereNotIn('fileId', [...exceptFileIds])
    .patch({ isOpen: false, visibleContent: null, startLine: null, endLine: null })
    .returning('fileName');
  return (closed as unknown as FileAgent[]).map((row) => row.fileName).sort();
}

/**
 * Brings the agent's open files in line with its limits after they changed (agent update): the least recently
 * used past `max_files_open` are closed, and every file left open is rendered again over the range it shows,
 * cut at the current char limit. Returns the names of the files closed. Leaves recompiling the system message
 * to the caller, which does it once for the whole update.
 */
export async function applyFileViewLimits(db: Knex, organizationId: string, agentId: string): Promise<string[]> {
  await lockAgentFiles(db, agentId);
  const limits = await fileViewLimitsOfAgent(db, organizationId, agentId);
  if (!limits) return [];
  const closed = await closeLeastRecentlyUsed(db, organizationId, agentId, limits.maxFilesOpen, []);
  const open = (await FileAgent.query(db)
    .forOrg(organizationId)
    .join('files', 'files.id', 'files_agents.file_id')
    .where({ 'files_agents.agent_id': agentId, 'files_agents.is_open': true })
    .select('files_agents.id', 'files_agents.file_name', 'files_agents.start_line', 'files_agents.end_line', 'files.content')) as Array<
    FileAgent & { content: string | null }
  >;
  for (const row of open) {
    const range =
      row.startLine !== null && row.endLine !== null ? { offset: row.startLine - 1, length: row.endLine - row.startLine + 1 } : {};
    const rendered = renderFileView(row.fileName, row.content ?? '', { ...range, charLimit: limits.perFileViewWindowCharLimit });
    // The range rendered when the file was opened, and a file's text never changes, so this only guards the types.
    if (!rendered.ok) continue;
    await FileAgent.query(db).forOrg(organizationId).findById(row.id).patch({ visibleContent: rendered.view.visibleContent });
  }
  return closed;
}

/** Closes all the agent's open files (the `PATCH …/files/close-all` route); returns their names. */
export async function closeAllAgentFiles(db: Knex, organizationId: string, agentId: string, now: Date): Promise<string[]> {
  const names = await closeOpenFiles(db, organizationId, agentId);
  if (names.length > 0) await recompileSystemMessage(db, organizationId, agentId, now);
  return names;
}

/** Records that the agent found these files (grep or semantic search hits), so they are the last to be evicted. */
export async function markFilesAccessed(db: Knex, organizationId: string, agentId: string, fileIds: readonly string[], now: Date): Promise<void> {
  // `fileIds` come most relevant first; each is a millisecond "more recently used" than the next, so the
  // least relevant is closed first, and ties never fall to the order of random ids.
  for (const [index, fileId] of fileIds.entries()) {
    await FileAgent.query(db)
      .forOrg(organizationId)
      .where({ agentId, fileId })
      .patch({ lastAccessedAt: new Date(now.getTime() - index) });
  }
}
