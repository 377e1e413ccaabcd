import { z } from 'zod';
import type { SimulatedAgentView } from '../../services/templates/types.js';

/** Spec 000 §3: id, name, agentId, agentTemplateId, isCorrupted; `reason` says why it is corrupted. */
export const SimulatedAgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Null while no agent could be built from the working state. */
  agentId: z.string().nullable(),
  agentTemplateId: z.string(),
  isCorrupted: z.boolean(),
  reason: z.string().nullable(),
});

export const VariablesSchema = z.object({ memoryVariables: z.record(z.string(), z.string()) });

export const SimulatedAgentParams = z.object({ simulatedAgentId: z.string() });

export function simulatedAgentToWire(view: SimulatedAgentView): z.infer<typeof SimulatedAgentSchema> {
  return {
    id: view.simulated.id,
    name: view.simulated.name,
    agentId: view.simulated.agentId,
    agentTemplateId: view.simulated.templateId,
    isCorrupted: view.isCorrupted,
    reason: view.reason,
  };
}
