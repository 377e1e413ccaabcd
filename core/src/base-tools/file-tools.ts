import { linesOfFile } from './file-view.js';

/**
 * The pure halves of the file tools: argument checks, grep over the attached files, and the texts the tools
 * return. The agent loop does the reads and writes around them.
 */

export type OpenFileRequest = { fileName: string; offset?: number; length?: number };

export type OpenFilesArgs = { requests: OpenFileRequest[]; closeAllOthers: boolean };

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

function optionalInteger(value: unknown, name: string): Checked<number | undefined> {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (typeof value !== 'number' || !Number.isInteger(value)) return { ok: false, error: `${name} must be an integer, got ${JSON.stringify(value)}` };
  return { ok: true, value };
}

/** Checks open_files arguments against the agent's limit before anything is opened. */
export function checkOpenFilesArgs(args: Record<string, unknown>, maxFilesOpen: number): Checked<OpenFilesArgs> {
  const raw = args.file_requests;
  if (!Array.isArray(raw) || raw.length === 0) return { ok: false, error: 'file_requests must be a non-empty list of {file_name, offset?, length?}' };
  if (raw.length > maxFilesOpen) {
    return {
      ok: false,
      error: `Cannot open ${raw.length} files: you may keep at most ${maxFilesOpen} files open at once. Request fewer files.`,
    };
  }
  const requests: OpenFileRequest[] = [];
  for (const entry of raw) {
    const request = (entry ?? {}) as Record<string, unknown>;
    if (typeof request.file_name !== 'string' || request.file_name === '') {
      return { ok: false, error: 'each file request needs a file_name, the full name shown in <directories> ("folder/file.txt")' };
    }
    const offset = optionalInteger(request.offset, `offset for ${request.file_name}`);
    if (!offset.ok) return offset;
    const length = optionalInteger(request.length, `length for ${request.file_name}`);
    if (!length.ok) return length;
    requests.push({
      fileName: request.file_name,
      ...(offset.value !== undefined ? { offset: offset.value } : {}),
      ...(length.value !== undefined ? { length: length.value } : {}),
    });
  }
  const names = requests.map((request) => request.fileName);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated) return { ok: false, error: `${repeated} is requested more than once; ask for one range per file` };
  return { ok: true, value: { requests, closeAllOthers: args.close_all_others === true } };
}

function describeRequest(request: OpenFileRequest): string {
  if (request.offset === undefined && request.length === undefined) return request.fileName;
  const first = (request.offset ?? 0) + 1;
  const last = request.length === undefined ? 'end' : String(first + request.length - 1);
  return `${request.fileName} (lines ${first}-${last})`;
}

/** What open_files tells the model: which files it opened, and which it closed and why. */
export function describeOpenedFiles(requests: OpenFileRequest[], closedByCloseAll: string[], closedByLimit: string[]): string {
  const opened = requests.map(describeRequest);
  const lines = [opened.length === 1 ? `* Opened ${opened[0]}` : `* Opened ${opened.length} files: ${opened.join(', ')}`];
  if (closedByCloseAll.length > 0) {
    lines.push(`Note: Closed ${closedByCloseAll.length} file(s) due to close_all_others=True: ${closedByCloseAll.join(', ')}`);
  }
  if (closedByLimit.length > 0) {
    lines.push(`Note: Closed ${closedByLimit.length} least recently used file(s) due to open file limit: ${closedByLimit.join(', ')}`);
  }
  return lines.join('\n');
}

export const GREP_LIMITS = {
  matchesPerPage: 20,
  matchesCollected: 1000,
  fileBytes: 50 * 1024 * 1024,
  totalBytes: 200 * 1024 * 1024,
  patternLength: 1000,
  contextLines: 20,
} as const;

export type GrepFile = { fileId: string; fileName: string; content: string | null };

export type GrepArgs = { pattern: string; include: string | undefined; contextLines: number; offset: number };

export type GrepResult = { text: string; matchedFileIds: string[] };

function compile(source: string, what: string): Checked<RegExp> {
  if (source.length > GREP_LIMITS.patternLength) {
    return { ok: false, error: `${what} is too long (${source.length} characters; at most ${GREP_LIMITS.patternLength})` };
  }
  try {
    return { ok: true, value: new RegExp(source, 'i') };
  } catch (error) {
    return { ok: false, error: `${what} is not a valid regular expression: ${(error as Error).message}` };
  }
}

export function checkGrepArgs(args: Record<string, unknown>): Checked<GrepArgs> {
  const pattern = typeof args.pattern === 'string' ? args.pattern.trim() : '';
  if (pattern === '') return { ok: false, error: 'pattern must be a non-empty regular expression' };
  const include = typeof args.include === 'string' && args.include.trim() !== '' ? args.include.trim() : undefined;
  const contextLines = optionalInteger(args.context_lines, 'context_lines');
  if (!contextLines.ok) return contextLines;
  const offset = optionalInteger(args.offset, 'offset');
  if (!offset.ok) return offset;
  return {
    ok: true,
    value: {
      pattern,
      include,
      contextLines: Math.min(Math.max(contextLines.value ?? 1, 0), GREP_LIMITS.contextLines),
      offset: Math.max(offset.value ?? 0, 0),
    },
  };
}

/** Counted without encoding the text: core runs in workflows too, where Node's Buffer is not available. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

type Match = { fileId: string; fileName: string; lineNumber: number; context: string[] };

/** The match line marked with `>`, its neighbours indented to line up, all with their 1-based line numbers. */
function contextAround(lines: string[], index: number, contextLines: number): string[] {
  const first = Math.max(0, index - contextLines);
  const last = Math.min(lines.length - 1, index + contextLines);
  const context: string[] = [];
  for (let at = first; at <= last; at += 1) context.push(`${at === index ? '>' : ' '} ${at + 1}: ${lines[at]}`);
  return context;
}

/**
 * grep_files over the agent's files: every line matching `pattern` (case-insensitive), in files whose name
 * matches `include`, one page of matches from `offset`, after a summary of where the matches are.
 */
export function grepFiles(files: GrepFile[], args: GrepArgs): Checked<GrepResult> {
  const pattern = compile(args.pattern, 'pattern');
  if (!pattern.ok) return pattern;
  const include = args.include === undefined ? undefined : compile(args.include, 'include');
  if (include && !include.ok) return include;
  if (files.length === 0) return { ok: true, value: { text: 'No files are currently attached to search', matchedFileIds: [] } };
  const searched = include ? files.filter((file) => include.value.test(file.fileName)) : files;
  if (searched.length === 0) {
    return {
      ok: true,
      value: { text: `No files match the filename pattern '${args.include}' (filtered ${files.length} files)`, matchedFileIds: [] },
    };
  }

  const matches: Match[] = [];
  let totalBytes = 0;
  let filesSearched = 0;
  let filesSkipped = 0;
  for (const file of searched) {
    if (matches.length >= GREP_LIMITS.matchesCollected) break;
    if (file.content === null) {
      filesSkipped += 1;
      continue;
    }
    const bytes = utf8Length(file.content);
    if (bytes > GREP_LIMITS.fileBytes || totalBytes + bytes > GREP_LIMITS.totalBytes) {
      filesSkipped += 1;
      continue;
    }
    totalBytes += bytes;
    filesSearched += 1;
    const lines = linesOfFile(file.content);
    for (let index = 0; index < lines.length && matches.length < GREP_LIMITS.matchesCollected; index += 1) {
      if (!pattern.value.test(lines[index]!)) continue;
      matches.push({ fileId: file.fileId, fileName: file.fileName, lineNumber: index + 1, context: contextAround(lines, index, args.contextLines) });
    }
  }

  if (matches.length === 0) {
    const where = args.include === undefined ? '' : ` in files matching '${args.include}'`;
    const skipped = filesSkipped > 0 ? ` (searched ${filesSearched} files, skipped ${filesSkipped})` : '';
    return { ok: true, value: { text: `No matches found for pattern: '${args.pattern}'${where}${skipped}`, matchedFileIds: [] } };
  }

  const capped = matches.length >= GREP_LIMITS.matchesCollected;
  const totalLabel = capped ? `${GREP_LIMITS.matchesCollected}+` : String(matches.length);
  const countsByFile = new Map<string, number>();
  for (const match of matches) countsByFile.set(match.fileName, (countsByFile.get(match.fileName) ?? 0) + 1);
  const page = matches.slice(args.offset, args.offset + GREP_LIMITS.matchesPerPage);
  const nextOffset = args.offset + GREP_LIMITS.matchesPerPage;
  const shown =
    page.length === 0
      ? `no matches at offset ${args.offset}`
      : `showing matches ${args.offset + 1}-${args.offset + page.length} of ${totalLabel}`;

  const text = [
    `Found ${totalLabel} total matches across ${countsByFile.size} files (${shown})`,
    ...(filesSkipped > 0 ? [`Note: Skipped ${filesSkipped} files (not parsed yet or over the size limits)`] : []),
    '='.repeat(80),
    '',
    'Files with matches:',
    ...[...countsByFile].sort((a, b) => b[1] - a[1]).map(([fileName, count]) => `  - ${fileName}: ${count} matches`),
    '',
    ...page.map((match) => `=== ${match.fileName}:${match.lineNumber} ===\n${match.context.join('\n')}\n`),
    nextOffset < matches.length
      ? `To see more matches, call: grep_files(pattern=${JSON.stringify(args.pattern)}, offset=${nextOffset})`
      : 'No more matches to show.',
    ...(capped ? [`Note: Only the first ${GREP_LIMITS.matchesCollected} matches were collected; there may be more.`] : []),
  ].join('\n');
  return { ok: true, value: { text, matchedFileIds: [...new Set(matches.map((match) => match.fileId))] } };
}

/** `similarity` is the cosine similarity to the query; null for a passage found by its words alone. */
export type SemanticMatch = { fileName: string; text: string; similarity: number | null };

/** What semantic_search_files tells the model: the passages grouped by file, best file first, each with its similarity. */
export function describeSemanticMatches(query: string, matches: SemanticMatch[]): string {
  if (matches.length === 0) return `No semantic matches found in attached files for query: '${query}'`;
  const byFile = new Map<string, SemanticMatch[]>();
  for (const match of matches) byFile.set(match.fileName, [...(byFile.get(match.fileName) ?? []), match]);
  const lines = [`Found ${matches.length} semantic matches in ${byFile.size} files for query: '${query}'`, ''];
  for (const [fileName, fileMatches] of byFile) {
    lines.push(`=== ${fileName} ===`);
    fileMatches.forEach((match, index) => {
      const how = match.similarity === null ? 'matched by words' : `similarity ${match.similarity.toFixed(3)}`;
      lines.push(`  Match ${index + 1} (${how}):`, ...match.text.split('\n').map((line) => `    ${line}`), '');
    });
  }
  return lines.join('\n').trimEnd();
}
