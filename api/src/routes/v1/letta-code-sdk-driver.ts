/**
 * Drives `@letta-ai/letta-code-sdk` through a new user's first steps against the API named by LETTA_BASE_URL, in a
 * process of its own (the SDK spawns Letta Code with this process's environment, which the test sets to keep
 * everything on the machine). Prints one JSON line per event: `{phase, message}` for every SDK message, and
 * `{phase, agentId | conversationId | result}` between phases. `ENGRAM_SDK_MODEL` names the model handle.
 */
import { createAgent, createSession, prompt, resumeSession, type AnyAgentTool, type SDKMessage } from '@letta-ai/letta-code-sdk';

const model = process.env.ENGRAM_SDK_MODEL ?? 'openai/gpt-4o-mini';
/** Letta Code works in the (temporary) home folder, not in the repository this script is run from. */
const cwd = process.env.HOME ?? process.cwd();
process.chdir(cwd);
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** A tool the SDK runs on this machine when the agent calls it. */
const weather: AnyAgentTool = {
  label: 'Weather',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  async execute(_toolCallId, args) {
    const { city } = args as { city: string };
    print({ phase: 'tool', city });
    return { content: [{ type: 'text', text: `3°C and cloudy in ${city}` }], details: { city } };
  },
};

async function streamTurn(phase: string, session: ReturnType<typeof createSession>, text: string): Promise<void> {
  await session.send(text);
  for await (const message of session.stream() as AsyncGenerator<SDKMessage>) {
    print({ phase, message });
    if (message.type === 'result') break;
  }
}

const agentId = await createAgent({ model, persona: 'You are a terse test agent.', memfs: false, skillSources: [], cwd });
print({ phase: 'created', agentId });

const session = createSession(agentId, { tools: [weather], permissionMode: 'bypassPermissions', memfs: false, skillSources: [], cwd });
await streamTurn('session', session, 'What is the weather in Oslo?');
print({ phase: 'session-done', conversationId: session.conversationId });
session.close();

const resumed = resumeSession(agentId, { permissionMode: 'bypassPermissions', memfs: false, skillSources: [], cwd });
await streamTurn('resumed', resumed, 'Thanks, that is all.');
print({ phase: 'resumed-done', conversationId: resumed.conversationId });
resumed.close();

const result = await prompt('One more thing: say hi.', agentId);
print({ phase: 'prompt', result });
process.exit(0);
