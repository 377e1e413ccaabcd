import { describe, expect, it } from 'vitest';
import { McpStdioConfigError, parseMcpStdioConfig } from './stdio-config.js';

describe('parseMcpStdioConfig', () => {
  it("defaults to the operator's organization only, with no host directories besides the system's", () => {
    expect(parseMcpStdioConfig({})).toEqual({ mode: 'first-organization', readOnlyPaths: [] });
  });

  it('reads the three modes and a list of absolute paths', () => {
    expect(parseMcpStdioConfig({ ENGRAM_MCP_STDIO: 'ALL' }).mode).toBe('all');
    expect(parseMcpStdioConfig({ ENGRAM_MCP_STDIO: ' none ' }).mode).toBe('none');
    expect(parseMcpStdioConfig({ ENGRAM_MCP_STDIO_READ_ONLY_PATHS: ' /opt/mcp/ , /srv//tools' }).readOnlyPaths).toEqual(['/opt/mcp/', '/srv/tools']);
  });

  it.each([
    [{ ENGRAM_MCP_STDIO: 'some' }, /^ENGRAM_MCP_STDIO: "some" is not one of first-organization, all, none$/],
    [{ ENGRAM_MCP_STDIO_READ_ONLY_PATHS: '/opt/mcp,relative/dir' }, /^ENGRAM_MCP_STDIO_READ_ONLY_PATHS: "relative\/dir" is not an absolute path/],
  ])('names the variable of a bad value (%o)', (env, message) => {
    expect(() => parseMcpStdioConfig(env)).toThrow(McpStdioConfigError);
    expect(() => parseMcpStdioConfig(env)).toThrow(message);
  });
});
