import type { MemoryBlock } from '../agent-state.js';

/** `value` is the block's new value to persist; `message` is what the tool returns to the model. */
export type MemoryEditResult = { ok: true; value: string; message: string } | { ok: false; error: string };

export const READ_ONLY_BLOCK_ERROR = 'This block is read-only and cannot be edited.';

/** A `12→ ` prefix: the model copied text from a line-numbered view of the block instead of the text itself. */
const LINE_NUMBER_PREFIX = /(^|\n)[ \t]*\d+→/;

function fail(error: string): MemoryEditResult {
  return { ok: false, error };
}

function lineNumberPrefixError(argumentName: string): string {
  return `Edit failed: ${argumentName} contains line-number prefixes (like "12→"). Line numbers are only a display aid; pass the block's text without them.`;
}

/** The limit check every edit shares; on success the message shows the model what the block now holds. */
function acceptIfWithinLimit(block: MemoryBlock, newValue: string, summary: string): MemoryEditResult {
  if (newValue.length > block.limit) {
    return fail(
      `Edit failed: the new value is ${newValue.length} characters, over the block's limit of ${block.limit}. ` +
        `The block "${block.label}" currently holds ${block.value.length} characters; shorten the new text or remove less important content first.`,
    );
  }
  return {
    ok: true,
    value: newValue,
    message: `${summary} The block "${block.label}" now holds ${newValue.length} of ${block.limit} characters. Its new value is:\n${newValue}`,
  };
}

function linesOf(value: string): string[] {
  return value === '' ? [] : value.split('\n');
}

/** 1-based line numbers of each non-overlapping occurrence of `needle`. */
function occurrenceLines(haystack: string, needle: string): number[] {
  const lines: number[] = [];
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length)) {
    lines.push(haystack.slice(0, index).split('\n').length);
  }
  return lines;
}

/** Inserts after line `insertLine` (1-based): 0 puts the text at the top, -1 at the end. */
export function memoryInsert(block: MemoryBlock, newString: string, insertLine: number): MemoryEditResult {
  if (block.readOnly) return fail(READ_ONLY_BLOCK_ERROR);
  if (LINE_NUMBER_PREFIX.test(newString)) return fail(lineNumberPrefixError('new_string'));
  const lines = linesOf(block.value);
  const validLine = Number.isInteger(insertLine) && insertLine >= -1 && insertLine <= lines.length;
  if (!validLine) {
    return fail(
      `Edit failed: insert_line ${insertLine} is out of range. The block "${block.label}" has ${lines.length} lines; ` +
        `use a line number from 0 (top) to ${lines.length}, or -1 to append at the end.`,
    );
  }
  const position = insertLine === -1 ? lines.length : insertLine;
  const newValue = [...lines.slice(0, position), newString, ...lines.slice(position)].join('\n');
  const where = position === 0 ? 'at the top' : position === lines.length ? 'at the end' : `after line ${position}`;
  return acceptIfWithinLimit(block, newValue, `Inserted the text ${where} of the block.`);
}

/** Replaces `oldString`, which must occur exactly once, so an ambiguous edit never changes the wrong place. */
export function memoryReplace(block: MemoryBlock, oldString: string, newString: string): MemoryEditResult {
  if (block.readOnly) return fail(READ_ONLY_BLOCK_ERROR);
  if (LINE_NUMBER_PREFIX.test(oldString)) return fail(lineNumberPrefixError('old_string'));
  if (LINE_NUMBER_PREFIX.test(newString)) return fail(lineNumberPrefixError('new_string'));
  if (oldString === '') return fail('Edit failed: old_string is empty. Pass the exact text in the block that you want to replace.');
  const lines = occurrenceLines(block.value, oldString);
  if (lines.length === 0) {
    return fail(
      `Edit failed: old_string was not found in the block "${block.label}". ` +
        'It must match the block\'s current text exactly, including whitespace and line breaks.',
    );
  }
  if (lines.length > 1) {
    return fail(
      `Edit failed: old_string occurs ${lines.length} times in the block "${block.label}" (lines ${lines.join(', ')}). ` +
        'Include more of the surrounding text so that it matches exactly once.',
    );
  }
  const index = block.value.indexOf(oldString);
  const newValue = block.value.slice(0, index) + newString + block.value.slice(index + oldString.length);
  return acceptIfWithinLimit(block, newValue, `Replaced the text on line ${lines[0]}.`);
}

export function memoryRethink(block: MemoryBlock, newMemory: string): MemoryEditResult {
  if (block.readOnly) return fail(READ_ONLY_BLOCK_ERROR);
  if (LINE_NUMBER_PREFIX.test(newMemory)) return fail(lineNumberPrefixError('new_memory'));
  return acceptIfWithinLimit(block, newMemory, 'Rewrote the whole block.');
}

export function coreMemoryAppend(block: MemoryBlock, content: string): MemoryEditResult {
  if (block.readOnly) return fail(READ_ONLY_BLOCK_ERROR);
  return acceptIfWithinLimit(block, `${block.value}\n${content}`, 'Appended the text to the block.');
}

/** Replaces every occurrence of `oldContent`. */
export function coreMemoryReplace(block: MemoryBlock, oldContent: string, newContent: string): MemoryEditResult {
  if (block.readOnly) return fail(READ_ONLY_BLOCK_ERROR);
  if (oldContent === '') return fail('Edit failed: old_content is empty. Pass the exact text in the block that you want to replace.');
  const parts = block.value.split(oldContent);
  if (parts.length === 1) {
    return fail(
      `Edit failed: old_content was not found in the block "${block.label}". It must match the block's current text exactly.`,
    );
  }
  const count = parts.length - 1;
  return acceptIfWithinLimit(block, parts.join(newContent), `Replaced ${count} occurrence${count === 1 ? '' : 's'} of the text.`);
}

/** Lines outside hunks that patch tools write around them (`*** Begin Patch`, `--- a/x`): they carry no edit. */
const PATCH_ENVELOPE = /^(\*\*\* |--- |\+\+\+ |diff |index )/;

type Hunk = { before: string[]; after: string[] };

function parseHunks(patch: string): Hunk[] | string {
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  for (const line of patch.replace(/\r\n/g, '\n').split('\n')) {
    if (line.startsWith('@@')) {
      current = { before: [], after: [] };
      hunks.push(current);
      continue;
    }
    if (current === null || line.startsWith('*** ')) {
      if (line.trim() !== '' && !PATCH_ENVELOPE.test(line)) return `the line "${line}" comes before any hunk; start each hunk with a line "@@"`;
      current = line.startsWith('*** ') ? null : current;
      continue;
    }
    if (line.startsWith('\\')) continue; // "\ No newline at end of file"
    const marker = line[0] ?? ' ';
    const content = line.slice(1);
    if (marker === ' ') {
      current.before.push(content);
      current.after.push(content);
    } else if (marker === '-') current.before.push(content);
    else if (marker === '+') current.after.push(content);
    else return `the hunk line "${line}" does not start with " ", "-" or "+"`;
  }
  // A patch's last line is often followed by a newline, which reads as one empty context line too many.
  for (const hunk of hunks) {
    while (hunk.before.at(-1) === '' && hunk.after.at(-1) === '' && hunk.before.length > 0) {
      hunk.before.pop();
      hunk.after.pop();
    }
  }
  return hunks.filter((hunk) => hunk.before.length > 0 || hunk.after.length > 0);
}

/** Indexes where `needle` starts in `lines`, as whole lines. */
function lineMatches(lines: string[], needle: string[]): number[] {
  const found: number[] = [];
  for (let start = 0; start + needle.length <= lines.length; start += 1) {
    if (needle.every((line, offset) => lines[start + offset] === line)) found.push(start);
  }
  return found;
}

/**
 * Applies a patch of `@@` hunks (context " ", removed "-", added "+" lines) to the block, all or nothing: each
 * hunk's old lines must occur exactly once, so a stale or ambiguous patch never edits the wrong place. A hunk
 * with no old lines appends its added lines at the end.
 */
export function memoryApplyPatch(block: MemoryBlock, patch: string): MemoryEditResult {
  if (block.readOnly) return fail(READ_ONLY_BLOCK_ERROR);
  const hunks = parseHunks(patch);
  if (typeof hunks === 'string') return fail(`Patch failed: ${hunks}.`);
  if (hunks.length === 0) return fail('Patch failed: the patch has no hunks. Start each hunk with a line "@@", then lines prefixed " ", "-" or "+".');
  let lines = linesOf(block.value);
  for (const [index, hunk] of hunks.entries()) {
    if (hunk.after.some((line) => LINE_NUMBER_PREFIX.test(line))) return fail(lineNumberPrefixError('patch'));
    if (hunk.before.length === 0) {
      lines = [...lines, ...hunk.after];
      continue;
    }
    const matches = lineMatches(lines, hunk.before);
    if (matches.length !== 1) {
      return fail(
        `Patch failed: the old lines of hunk ${index + 1} ${matches.length === 0 ? 'were not found' : `occur ${matches.length} times`} in the block "${block.label}". ` +
          'Context and removed lines must match the block exactly, once; add context lines to make a hunk unique. No hunk was applied.',
      );
    }
    const start = matches[0]!;
    lines = [...lines.slice(0, start), ...hunk.after, ...lines.slice(start + hunk.before.length)];
  }
  return acceptIfWithinLimit(block, lines.join('\n'), `Applied ${hunks.length} hunk${hunks.length === 1 ? '' : 's'}.`);
}
