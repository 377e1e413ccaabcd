import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

/**
 * `@letta-ai/letta-code-sdk` 0.1.14 (which runs Letta Code 0.19.5) as a new user drives it, against the test stack
 * and the scripted model server, with nothing able to leave the machine: a temporary HOME, telemetry and updates
 * off, and every proxied request sent to a closed loopback port (only loopback is reached directly).
 */
const { stack, model, api, stop } = await startAgentTestContext();
const home = await mkdtemp(join(tmpdir(), 'engram-letta-code-'));
afterAll(async () => {
  await stop();
  await rm(home, { recursive: true, force: true });
});

const DRIVER = fileURLToPath(new URL('./letta-code-sdk-driver.ts', import.meta.url));

type DriverLine = { phase: string; message?: Record<string, unknown>; agentId?: string; conversationId?: string; result?: Record<string, unknown>; city?: string };

function runDriver(): Promise<{ lines: DriverLine[]; code: number | null; stderr: string }> {
  // Run from this package, where `tsx` resolves; the driver points Letta Code at `home` as its working folder.
  const child = spawn(process.execPath, ['--import', 'tsx', DRIVER], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    env: {
      PATH: process.env.PATH,
      HOME: home,
      LETTA_BASE_URL: stack.baseUrl,
      LETTA_API_KEY: stack.apiKey,
      LETTA_MEMFS_BASE_URL: stack.baseUrl,
      LETTA_CODE_TELEM: '0',
      DO_NOT_TRACK: '1',
      DISABLE_AUTOUPDATER: '1',
      HTTP_PROXY: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      http_proxy: 'http://127.0.0.1:9',
      https_proxy: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      ENGRAM_SDK_MODEL: 'openai/gpt-4o-mini',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    child.on('close', (code) =>
      resolve({
        code,
        stderr,
        lines: stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as DriverLine),
      }),
    );
  });
}

const lastUserText = (request: ChatRequest) => {
  const content = request.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
};

describe('Letta Code SDK against Engram', () => {
  it('creates an agent, runs a client-side tool in a new session, resumes the default conversation and answers a one-shot prompt, with no protocol error', { timeout: 240_000 }, async () => {
    model.onRequest((request) => {
      const user = lastUserText(request);
      const toolReturned = request.messages.some((message) => message.role === 'tool');
      if (user.includes('weather in Oslo') && !toolReturned && request.tools?.some((tool) => tool.function.name === 'get_weather')) {
        return { type: 'tool_calls', calls: [{ id: 'call_weather_oslo', name: 'get_weather', arguments: { city: 'Oslo' } }] };
      }
      if (user.includes('weather in Oslo')) return { type: 'text', text: 'It is 3°C and cloudy in Oslo.' };
      if (user.includes('that is all')) return { type: 'text', text: 'You are welcome.' };
      return { type: 'text', text: 'Hi.' };
    });

    const { lines, code, stderr } = await runDriver();
    const transcript = JSON.stringify(lines, null, 1);
    expect(code, `${transcript}\n${stderr}`).toBe(0);
    const messages: Array<Record<string, unknown>> = lines.filter((line) => line.message).map((line) => ({ phase: line.phase, ...line.message! }));
    expect(messages.filter((message) => message.type === 'error'), transcript).toEqual([]);
    expect(transcript).not.toContain('protocol_error');

    const agentId = lines.find((line) => line.phase === 'created')?.agentId;
    expect(agentId).toMatch(/^agent-/);
    const agent = (await (await api(`/agents/${agentId}?include=agent.tools`)).json()) as { id: string; tools: Array<{ name: string }> };
    expect(agent.id).toBe(agentId);
    // Letta Code's default agent asks for Letta's built-in tools by name.
    expect(agent.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_search', 'fetch_webpage']));

    // The client-side tool ran on this machine, and its result ended the turn with the model's answer.
    expect(lines.filter((line) => line.phase === 'tool')).toEqual([{ phase: 'tool', city: 'Oslo' }]);
    const session = messages.filter((message) => message.phase === 'session');
    // Every streamed chunk of the call named it (the SDK reports a chunk without an id as a protocol error).
    const toolCalls = session.filter((message) => message.type === 'tool_call');
    expect(toolCalls.length).toBeGreaterThan(1);
    expect(toolCalls.every((message) => message.toolCallId === 'call_weather_oslo' && message.toolName === 'get_weather')).toBe(true);
    expect(session.filter((message) => message.type === 'tool_result')).toEqual([expect.objectContaining({ toolCallId: 'call_weather_oslo', content: '3°C and cloudy in Oslo', isError: false })]);
    const answer = session.filter((message) => message.type === 'assistant').map((message) => message.content).join('');
    expect(answer).toBe('It is 3°C and cloudy in Oslo.');
    expect(session.at(-1)).toMatchObject({ type: 'result', success: true, result: answer });
    const conversationId = lines.find((line) => line.phase === 'session-done')?.conversationId;
    expect(conversationId).toMatch(/^conv-/);

    const resumed = messages.filter((message) => message.phase === 'resumed');
    // Resuming by agent id continues the agent's own history, the default conversation.
    expect(resumed.at(-1)).toMatchObject({ type: 'result', success: true, result: 'You are welcome.', conversationId: 'default' });
    expect(lines.find((line) => line.phase === 'prompt')?.result).toMatchObject({ type: 'result', success: true, result: 'Hi.', conversationId: expect.stringMatching(/^conv-/) });

    // Every model call came through Engram to the scripted server; the tool's result reached the model.
    expect(model.requests.some((request) => request.messages.some((message) => message.role === 'tool' && JSON.stringify(message.content).includes('3°C and cloudy in Oslo')))).toBe(true);
  });
});
