import { z } from 'zod';

/** One of the agent's secrets, by name: its value is never sent (Letta Code then keeps no copy of it). */
export const AgentSecretNameResponse = z
  .object({
    agent_id: z.string(),
    key: z.string(),
    value: z.null().describe('Always null: secret values stay on the server, where the agent\'s tools run with them'),
    description: z.string().nullable(),
  })
  .meta({ id: 'AgentSecretName' });
