import { describe, expect, it } from 'vitest';
import { EMPTY_SERVER_DRAFT, serverConfig } from './server-draft.js';

describe('the add-server form', () => {
  it('makes a stdio config with one argument a line and the environment rows that are filled', () => {
    const made = serverConfig({
      ...EMPTY_SERVER_DRAFT,
      name: 'files',
      transport: 'stdio',
      command: ' npx ',
      args: '-y\n@modelcontextprotocol/server-filesystem\n\n/home/me/My Documents',
      env: [
        { name: 'LOG_LEVEL', value: 'debug' },
        { name: '', value: '' },
      ],
    });
    expect(made).toEqual({
      config: { mcp_server_type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/My Documents'], env: { LOG_LEVEL: 'debug' } },
      errors: {},
    });
  });

  it('makes a remote config with its credentials, leaving out what is empty', () => {
    expect(serverConfig({ ...EMPTY_SERVER_DRAFT, name: 'search', transport: 'sse', url: 'https://mcp.example.com/sse', authToken: 'token-1' })).toEqual({
      config: { mcp_server_type: 'sse', server_url: 'https://mcp.example.com/sse', auth_header: null, auth_token: 'token-1', custom_headers: null },
      errors: {},
    });
    const withHeaders = serverConfig({ ...EMPTY_SERVER_DRAFT, name: 'x', url: 'http://127.0.0.1:9000/mcp', headers: [{ name: 'X-Api-Key', value: 'secret' }] });
    expect(withHeaders.config).toMatchObject({ mcp_server_type: 'streamable_http', custom_headers: { 'X-Api-Key': 'secret' } });
  });

  it('names each field that stops the config', () => {
    expect(serverConfig({ ...EMPTY_SERVER_DRAFT, transport: 'stdio', env: [{ name: '1BAD', value: 'x' }] })).toEqual({
      config: null,
      errors: { name: 'Name the server', command: 'Enter the command that starts the server', 'env.0': 'Letters, digits and _, not starting with a digit' },
    });
    expect(serverConfig({ ...EMPTY_SERVER_DRAFT, name: 'x', url: 'ftp://example.com', authHeader: 'Bad Header', headers: [{ name: 'ok', value: '' }, { name: 'no:colon', value: 'v' }] }).errors).toEqual({
      url: 'Enter an http(s) URL',
      authHeader: 'Not a valid header name',
      'headers.1': 'Not a valid header name',
    });
  });
});
