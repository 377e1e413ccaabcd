/*
 * The add-server form's fields and the config they make: arguments one a line (an argument may hold spaces),
 * environment variables and headers as name/value rows. Pure, so it is tested without a browser.
 */
import type { McpServerConfig, McpTransport } from './mcp-types.js';

export type NamedValue = { name: string; value: string };

export type ServerDraft = {
  name: string;
  transport: McpTransport;
  command: string;
  /** One argument a line. */
  args: string;
  env: NamedValue[];
  url: string;
  /** Empty: `Authorization`, where a bare token is sent as `Bearer <token>`. */
  authHeader: string;
  authToken: string;
  headers: NamedValue[];
};

export const EMPTY_SERVER_DRAFT: ServerDraft = { name: '', transport: 'streamable_http', command: '', args: '', env: [], url: '', authHeader: '', authToken: '', headers: [] };

const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Rows with a name become entries; a row left wholly empty is ignored. */
function entries(rows: NamedValue[], field: string, validName: RegExp, rule: string, errors: Record<string, string>): Record<string, string> | null {
  const filled = rows.filter((row) => row.name.trim() !== '' || row.value !== '');
  filled.forEach((row, index) => {
    if (!validName.test(row.name.trim())) errors[`${field}.${index}`] = rule;
  });
  return filled.length ? Object.fromEntries(filled.map((row) => [row.name.trim(), row.value])) : null;
}

function httpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** The config the draft makes, or a message per field that stops it. */
export function serverConfig(draft: ServerDraft): { config: McpServerConfig; errors: Record<string, string> } | { config: null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (draft.name.trim() === '') errors.name = 'Name the server';
  if (draft.transport === 'stdio') {
    if (draft.command.trim() === '') errors.command = 'Enter the command that starts the server';
    const env = entries(draft.env, 'env', ENVIRONMENT_NAME, 'Letters, digits and _, not starting with a digit', errors);
    const args = draft.args.split('\n').filter((line) => line.trim() !== '');
    if (Object.keys(errors).length) return { config: null, errors };
    return { config: { mcp_server_type: 'stdio', command: draft.command.trim(), args, env }, errors };
  }
  if (!httpUrl(draft.url.trim())) errors.url = 'Enter an http(s) URL';
  if (draft.authHeader.trim() !== '' && !HEADER_NAME.test(draft.authHeader.trim())) errors.authHeader = 'Not a valid header name';
  const headers = entries(draft.headers, 'headers', HEADER_NAME, 'Not a valid header name', errors);
  if (Object.keys(errors).length) return { config: null, errors };
  return {
    config: {
      mcp_server_type: draft.transport,
      server_url: draft.url.trim(),
      auth_header: draft.authHeader.trim() || null,
      auth_token: draft.authToken.trim() || null,
      custom_headers: headers,
    },
    errors,
  };
}
