import type { AgentType, ToolRule } from '../agent-state.js';
import type { ToolDefinition } from '../model.js';

/** The built-in tools the server executes itself (never in a sandbox). */
export const BASE_TOOL_NAMES = [
  'send_message',
  'conversation_search',
  'memory_insert',
  'memory_replace',
  'memory_rethink',
  'core_memory_append',
  'core_memory_replace',
  'archival_memory_insert',
  'archival_memory_search',
  'open_files',
  'grep_files',
  'semantic_search_files',
  'memory_finish_edits',
  'send_message_to_agent_and_wait_for_reply',
  'send_message_to_agent_async',
  'send_message_to_agents_matching_tags',
  'send_message_to_all_agents_in_group',
  'memory',
  'memory_apply_patch',
  'web_search',
  'fetch_webpage',
  'run_code',
] as const;

export type BaseToolName = (typeof BASE_TOOL_NAMES)[number];

export type BaseTool = {
  name: BaseToolName;
  toolType: 'letta_core' | 'letta_memory_core' | 'letta_files_core' | 'letta_sleeptime_core' | 'letta_multi_agent_core' | 'letta_builtin';
  description: string;
  jsonSchema: ToolDefinition;
};

const LABEL_PARAMETER = {
  type: 'string',
  description: 'Label of the memory block to edit, exactly as it appears in your core memory (for example "human" or "persona").',
};

function baseTool(
  name: BaseToolName,
  toolType: BaseTool['toolType'],
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): BaseTool {
  return { name, toolType, description, jsonSchema: { name, description, parameters: { type: 'object', properties, required } } };
}

export const BASE_TOOLS: ReadonlyArray<BaseTool> = [
  baseTool(
    'send_message',
    'letta_core',
    'Send a message to the user. The user sees only what you pass to this tool; any other text you write is private. ' +
      'Calling it ends your turn, so put everything you want to say into one message.',
    { message: { type: 'string', description: 'The complete message to show the user. Markdown is allowed.' } },
    ['message'],
  ),
  baseTool(
    'conversation_search',
    'letta_core',
    'Search your past conversation history (recall memory), including messages that are no longer in your context window. ' +
      'Use it when you need something said earlier: a detail the user mentioned, a previous answer, or when something happened. ' +
      'Every filter is optional and the filters combine.',
    {
      query: {
        type: 'string',
        description: 'Words or a phrase to look for. Leave it out to match every message allowed by the other filters.',
      },
      roles: {
        type: 'array',
        items: { type: 'string', enum: ['assistant', 'user', 'tool'] },
        description: 'Only return messages from these roles, for example ["user"] for what the user said.',
      },
      limit: { type: 'integer', default: 5, description: 'Maximum number of results to return. Defaults to 5.' },
      start_date: {
        type: 'string',
        description: 'Only messages on or after this moment: an ISO 8601 date ("2025-03-01") or date-time, in your timezone. Inclusive.',
      },
      end_date: {
        type: 'string',
        description: 'Only messages on or before this moment: an ISO 8601 date ("2025-03-31") or date-time, in your timezone. Inclusive.',
      },
    },
    [],
  ),
  baseTool(
    'memory_insert',
    'letta_memory_core',
    'Insert new text into one of your memory blocks at a chosen line, leaving the rest of the block unchanged. ' +
      'Use it to record new information worth remembering. The block must have room for the new text within its character limit.',
    {
      label: LABEL_PARAMETER,
      new_string: {
        type: 'string',
        description: 'The text to insert. It may span several lines. Do not include line-number prefixes.',
      },
      insert_line: {
        type: 'integer',
        default: -1,
        description: 'The line after which to insert the text: 0 inserts at the very top, -1 (the default) appends at the end.',
      },
    },
    ['label', 'new_string'],
  ),
  baseTool(
    'memory_replace',
    'letta_memory_core',
    'Replace one exact piece of text in a memory block with new text. old_string must match the block\'s current text character ' +
      'for character, including whitespace and line breaks, and must occur exactly once: include enough surrounding text to make ' +
      'it unique. To delete text, pass an empty new_string.',
    {
      label: LABEL_PARAMETER,
      old_string: {
        type: 'string',
        description: 'The exact text to replace, copied from the block without line-number prefixes. It must occur exactly once.',
      },
      new_string: { type: 'string', description: 'The text to put in its place. May be empty to delete old_string.' },
    },
    ['label', 'old_string', 'new_string'],
  ),
  baseTool(
    'memory_rethink',
    'letta_sleeptime_core',
    'Rewrite a memory block completely, replacing its whole value. Use it to reorganize, condense or consolidate a block ' +
      'that has become cluttered or contradictory. For small changes prefer memory_replace or memory_insert.',
    {
      label: LABEL_PARAMETER,
      new_memory: {
        type: 'string',
        description: 'The complete new contents of the block. Anything you leave out is lost, so carry over what is still true.',
      },
    },
    ['label', 'new_memory'],
  ),
  baseTool(
    'core_memory_append',
    'letta_memory_core',
    'Add text to the end of a memory block, on a new line. Use it to record new information worth remembering.',
    { label: LABEL_PARAMETER, content: { type: 'string', description: 'The text to append. It may span several lines.' } },
    ['label', 'content'],
  ),
  baseTool(
    'core_memory_replace',
    'letta_memory_core',
    'Replace text in a memory block with new text. Every occurrence of old_content is replaced, so make it specific enough ' +
      'to match only what you mean. It must match the block\'s current text exactly. To delete text, pass an empty new_content.',
    {
      label: LABEL_PARAMETER,
      old_content: { type: 'string', description: 'The exact text to replace, as it appears in the block.' },
      new_content: { type: 'string', description: 'The text to put in its place. May be empty to delete old_content.' },
    },
    ['label', 'old_content', 'new_content'],
  ),
  // Not among any agent type's defaults (the reference server deprecated them as defaults); attached by name or id.
  baseTool(
    'archival_memory_insert',
    'letta_core',
    'Store a piece of information in your archival memory: long-term storage outside your context window that you can ' +
      'search later with archival_memory_search. Use it for facts, events and details worth keeping that do not belong in ' +
      'your core memory blocks. Each call stores one self-contained memory; write it so it makes sense on its own.',
    {
      content: { type: 'string', description: 'The memory to store, written to be understood without the surrounding conversation.' },
      tags: {
        type: 'array',
        items: { type: 'string' },
        description: 'Optional labels for the memory (for example ["preferences", "travel"]), to filter searches by later.',
      },
    },
    ['content'],
  ),
  baseTool(
    'archival_memory_search',
    'letta_core',
    'Search your archival memory for stored memories related to a query. Matches by meaning and by shared words, best ' +
      'first. Use it before answering questions about things you may have stored earlier.',
    {
      query: { type: 'string', description: 'What to look for: a question, a topic or key words.' },
      tags: {
        type: 'array',
        items: { type: 'string' },
        description: 'Only return memories with these tags (see tag_match_mode).',
      },
      tag_match_mode: {
        type: 'string',
        enum: ['any', 'all'],
        default: 'any',
        description: '"any" (the default) returns memories with at least one of the tags; "all" only memories with every tag.',
      },
      top_k: { type: 'integer', default: 5, description: 'Maximum number of memories to return. Defaults to 5.' },
      start_datetime: {
        type: 'string',
        description: 'Only memories stored on or after this moment: an ISO 8601 date ("2025-03-01") or date-time, in your timezone.',
      },
      end_datetime: {
        type: 'string',
        description: 'Only memories stored on or before this moment: an ISO 8601 date ("2025-03-31") or date-time, in your timezone. Inclusive.',
      },
    },
    ['query'],
  ),
  baseTool(
    'open_files',
    'letta_files_core',
    'Open one or more files of your attached folders so their contents show in your <directories> section, with line ' +
      'numbers. Open only what you need: you may keep a limited number of files open at once, and opening more closes the ' +
      'least recently used ones. To read part of a long file, give offset and length.',
    {
      file_requests: {
        type: 'array',
        description: 'The files to open, each by its full name as listed in <directories> ("folder/file.txt").',
        items: {
          type: 'object',
          properties: {
            file_name: { type: 'string', description: 'The file\'s full name, including the folder: "folder/file.txt".' },
            offset: {
              type: 'integer',
              description: 'Optional 0-based first line to show (offset 0 is line 1). Leave it out to start at the top.',
            },
            length: { type: 'integer', description: 'Optional number of lines to show from offset. Leave it out to show to the end.' },
          },
          required: ['file_name'],
        },
      },
      close_all_others: {
        type: 'boolean',
        default: false,
        description: 'Close every other open file first, so only the requested files stay open. Defaults to false.',
      },
    },
    ['file_requests'],
  ),
  baseTool(
    'grep_files',
    'letta_files_core',
    'Search the lines of the files in your attached folders with a regular expression (case-insensitive). Shows each ' +
      'match with its line number and surrounding lines, 20 matches per page; call again with the offset it gives to see more.',
    {
      pattern: { type: 'string', description: 'The regular expression to look for in each line, for example "def \\w+\\(" or "TODO".' },
      include: {
        type: 'string',
        description: 'Optional regular expression on file names: only files whose name matches are searched, for example "\\.py$".',
      },
      context_lines: {
        type: 'integer',
        default: 1,
        description: 'Lines to show before and after each match. Defaults to 1.',
      },
      offset: {
        type: 'integer',
        description: 'How many matches to skip, to page through results: the previous call says which offset comes next.',
      },
    },
    ['pattern'],
  ),
  baseTool(
    'semantic_search_files',
    'letta_files_core',
    'Search the files in your attached folders by meaning: returns the passages closest to the query, best first, with ' +
      'the file each comes from. Use it to find where a topic is covered before opening the file.',
    {
      query: { type: 'string', description: 'What to look for: a question, a topic or key words.' },
      limit: { type: 'integer', default: 5, description: 'Maximum number of passages to return, at most 50. Defaults to 5.' },
    },
    ['query'],
  ),
  baseTool(
    'memory_finish_edits',
    'letta_sleeptime_core',
    'Call it when you have finished editing your memory blocks for now. It changes nothing and ends your turn.',
    {},
    [],
  ),
  baseTool(
    'send_message_to_agent_and_wait_for_reply',
    'letta_multi_agent_core',
    'Send a message to another agent and wait for its reply. The other agent answers as in any conversation, ' +
      'knowing the message comes from you; its reply is returned to you. Use it to ask an agent with other knowledge or tools.',
    {
      message: { type: 'string', description: 'The message to send, complete and self-contained: the other agent does not see your conversation.' },
      other_agent_id: { type: 'string', description: 'The id of the agent to send it to (agent-…).' },
    },
    ['message', 'other_agent_id'],
  ),
  baseTool(
    'send_message_to_agent_async',
    'letta_multi_agent_core',
    'Send a message to another agent without waiting for its reply: it answers in its own time and the answer is not ' +
      'returned to you. Use it to hand work over or to notify an agent.',
    {
      message: { type: 'string', description: 'The message to send, complete and self-contained.' },
      other_agent_id: { type: 'string', description: 'The id of the agent to send it to (agent-…).' },
    },
    ['message', 'other_agent_id'],
  ),
  baseTool(
    'send_message_to_agents_matching_tags',
    'letta_multi_agent_core',
    'Send a message to every agent whose tags match, and wait for all their replies, which are returned to you. ' +
      'An agent matches when it has all of match_all and at least one of match_some (when given). You are never sent your own message.',
    {
      message: { type: 'string', description: 'The message to send to each matching agent.' },
      match_all: { type: 'array', items: { type: 'string' }, description: 'Tags an agent must all have.' },
      match_some: { type: 'array', items: { type: 'string' }, description: 'Tags of which an agent must have at least one (ignored when empty).' },
    },
    ['message', 'match_all', 'match_some'],
  ),
  baseTool(
    'send_message_to_all_agents_in_group',
    'letta_multi_agent_core',
    'Send a message to every member of the group you supervise and wait for all their replies, which are returned to ' +
      'you. Then answer the user from what they said.',
    { message: { type: 'string', description: 'The message for the members: the task or question they should answer.' } },
    ['message'],
  ),
  baseTool(
    'memory',
    'letta_memory_core',
    'Manage your memory blocks as files under /memories: the block labelled "human" is /memories/human. Commands: ' +
      '"view" shows a block with line numbers (or, for /memories, lists your blocks); "create" makes a new block (path, ' +
      'description, optional file_text); "str_replace" replaces old_string, which must occur exactly once, with new_string; ' +
      '"insert" puts insert_text after line insert_line (0 for the top, -1 for the end); "delete" detaches the block from ' +
      'you; "rename" moves old_path to new_path, or with path and description changes the block\'s description.',
    {
      command: {
        type: 'string',
        enum: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'],
        description: 'The operation to perform.',
      },
      path: { type: 'string', description: 'The block to act on, as /memories/<label> (for view, create, str_replace, insert, delete, and rename of a description).' },
      file_text: { type: 'string', description: 'For create: the new block\'s initial text. Leave it out for an empty block.' },
      description: { type: 'string', description: 'For create, or rename with path: what the block holds and when to update it.' },
      old_string: { type: 'string', description: 'For str_replace: the exact text to replace, without line-number prefixes. It must occur exactly once.' },
      new_string: { type: 'string', description: 'For str_replace: the text to put in its place (empty to delete old_string).' },
      insert_line: { type: 'integer', description: 'For insert: the line after which to insert, 0 for the top, -1 for the end.' },
      insert_text: { type: 'string', description: 'For insert: the text to insert.' },
      old_path: { type: 'string', description: 'For rename: the block\'s current path, /memories/<label>.' },
      new_path: { type: 'string', description: 'For rename: the block\'s new path, /memories/<new label>.' },
    },
    ['command'],
  ),
  baseTool(
    'memory_apply_patch',
    'letta_memory_core',
    'Edit a memory block with a patch: one or more hunks, each starting with a line "@@", whose lines start with " " ' +
      '(context, kept), "-" (removed) or "+" (added). Each hunk\'s context and removed lines must match the block exactly ' +
      'and occur once. Use it for several edits at once; for one replacement memory_replace is simpler.',
    {
      label: LABEL_PARAMETER,
      patch: {
        type: 'string',
        description: 'The patch: hunks starting with "@@", lines prefixed " ", "-" or "+". "*** Begin Patch" / "*** End Patch" lines are allowed and ignored.',
      },
    },
    ['label', 'patch'],
  ),
  baseTool(
    'web_search',
    'letta_builtin',
    'Search the web and return the most relevant pages, each with its title, URL, publication date when known, and the ' +
      'passages that match the query (the full page text when include_text is true). Use it for current events, facts you ' +
      'are unsure of, or anything beyond your training data; fetch a result with fetch_webpage to read all of it.',
    {
      query: { type: 'string', description: 'What to search for, as you would type it into a search engine.' },
      num_results: { type: 'integer', default: 10, description: 'How many results to return, 1 to 100. Defaults to 10.' },
      category: {
        type: 'string',
        enum: ['company', 'research paper', 'news', 'pdf', 'github', 'tweet', 'personal site', 'linkedin profile', 'financial report'],
        description: 'Optional: only this kind of content. Providers without categories use it as a hint in the query.',
      },
      include_text: {
        type: 'boolean',
        default: false,
        description: 'Also return each page\'s full text. Defaults to false: the text of many pages rarely fits in your context.',
      },
      include_domains: { type: 'array', items: { type: 'string' }, description: 'Optional: only results from these domains ("example.com").' },
      exclude_domains: { type: 'array', items: { type: 'string' }, description: 'Optional: no results from these domains.' },
      start_published_date: { type: 'string', description: 'Optional: only pages published on or after this date (ISO 8601, "2025-01-31").' },
      end_published_date: { type: 'string', description: 'Optional: only pages published on or before this date (ISO 8601).' },
      user_location: { type: 'string', description: 'Optional: a two-letter country code ("US") for results local to it.' },
    },
    ['query'],
  ),
  baseTool(
    'fetch_webpage',
    'letta_builtin',
    'Fetch a web page and return its readable content as markdown: the main text, headings, lists and links, without ' +
      'navigation, scripts or styling. Plain-text and JSON pages are returned as they are.',
    { url: { type: 'string', description: 'The page\'s full http:// or https:// URL.' } },
    ['url'],
  ),
  baseTool(
    'run_code',
    'letta_builtin',
    'Run a short program in the isolated tool sandbox and return what it printed (stdout and stderr) and any error. ' +
      'Use it to compute, transform data or check an idea. Each call starts afresh: nothing persists between calls.',
    {
      code: { type: 'string', description: 'The complete program to run. Print what you want to see.' },
      language: { type: 'string', enum: ['python', 'js', 'ts'], description: 'The program\'s language: python, js (JavaScript) or ts (TypeScript).' },
    },
    ['code', 'language'],
  ),
];

/** Tools whose call is a message to other agents: each callee answers in a run of its own, a child of the caller's. */
export const AGENT_CALL_TOOL_NAMES = [
  'send_message_to_agent_and_wait_for_reply',
  'send_message_to_agent_async',
  'send_message_to_agents_matching_tags',
  'send_message_to_all_agents_in_group',
] as const satisfies readonly BaseToolName[];

export type AgentCallToolName = (typeof AGENT_CALL_TOOL_NAMES)[number];

export function isAgentCallTool(name: string): name is AgentCallToolName {
  return (AGENT_CALL_TOOL_NAMES as readonly string[]).includes(name);
}

/** What `include_multi_agent_tools` attaches (the group tool comes with supervising a group). */
export const MULTI_AGENT_TOOL_NAMES = [
  'send_message_to_agent_and_wait_for_reply',
  'send_message_to_agent_async',
  'send_message_to_agents_matching_tags',
] as const satisfies readonly AgentCallToolName[];

/** Attached to a supervisor group's manager while it manages the group. */
export const SUPERVISOR_TOOL_NAME = 'send_message_to_all_agents_in_group' satisfies AgentCallToolName;

/**
 * The file tools. No agent type gets them by default: attaching an agent's first folder attaches them and
 * detaching its last folder removes them.
 */
export const FILE_TOOL_NAMES = ['open_files', 'grep_files', 'semantic_search_files'] as const satisfies readonly BaseToolName[];

export const FILE_TOOL_TYPE = 'letta_files_core';

const DEFAULT_TOOL_NAMES: Record<AgentType, readonly BaseToolName[]> = {
  letta_v1_agent: ['conversation_search', 'memory_replace', 'memory_insert'],
  memgpt_v2_agent: ['send_message', 'conversation_search', 'memory_replace', 'memory_insert'],
  memgpt_agent: ['send_message', 'conversation_search', 'core_memory_append', 'core_memory_replace'],
  react_agent: [],
  workflow_agent: [],
  sleeptime_agent: ['memory_replace', 'memory_insert', 'memory_rethink', 'memory_finish_edits'],
};

/** The base tools attached to a new agent of this type. */
export function defaultToolNamesFor(agentType: AgentType): string[] {
  return [...DEFAULT_TOOL_NAMES[agentType]];
}

/** The built-ins that reach outside the database (the web, the sandbox): the tool activity runs them, never the step's transaction. */
export const BUILTIN_TOOL_TYPE = 'letta_builtin';

export function isBaseToolName(name: string): name is BaseToolName {
  return (BASE_TOOL_NAMES as readonly string[]).includes(name);
}

/** Base tools that end the turn when called (the reference's default terminal tools). */
const EXIT_LOOP_TOOLS: ReadonlySet<string> = new Set(['send_message', 'send_message_to_agent_async', 'memory_finish_edits']);

/**
 * The rules a new agent gets for its base tools. letta_v1 agents answer in plain text and stop on their own,
 * so they get none; the heartbeat-driven types need send_message to end the turn and the others to keep it going.
 */
export function defaultToolRulesFor(agentType: AgentType, toolNames: string[]): ToolRule[] {
  if (agentType === 'letta_v1_agent') return [];
  return toolNames.filter(isBaseToolName).map((toolName): ToolRule =>
    EXIT_LOOP_TOOLS.has(toolName) ? { type: 'exit_loop', tool_name: toolName } : { type: 'continue_loop', tool_name: toolName },
  );
}
