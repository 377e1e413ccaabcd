import { z } from 'zod';
import type { AbTest } from '@engram/db';
import type { AbTestArmResult, AbTestArmView } from '../../services/ab-tests/ab-test-service.js';
import { iso, PageQuery } from './schemas.js';

const NAME_REQUIRED = 'Name is required';

/** Spec 000 §3: id, name, description, organizationId, projectId; with whether it still splits traffic. */
export const AbTestSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    organizationId: z.string(),
    projectId: z.string(),
    status: z.enum(['running', 'stopped']),
    /** The attached template promoted when the test was stopped. */
    winnerAbTestTemplateId: z.string().nullable(),
    stoppedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AbTest' });

/** Spec 000 §3: an attached template is id, templateName, coreAgentId, simulatedAgentId; with its weight. */
export const AbTestTemplateSchema = z
  .object({
    id: z.string(),
    /** `name:version` of the arm's saved version. */
    templateName: z.string(),
    /** The template's agent entity, which its agents name as their `entity_id`. */
    coreAgentId: z.string(),
    simulatedAgentId: z.string().nullable(),
    weight: z.number(),
    /** Values of the version's memory variables for the agents the arm makes (a user's own values come first). */
    memoryVariables: z.record(z.string(), z.string()),
  })
  .meta({ id: 'AbTestTemplate' });

export const AbTestArmResultSchema = z
  .object({
    abTestTemplateId: z.string(),
    templateName: z.string(),
    weight: z.number(),
    users: z.number(),
    runs: z.number(),
    medianLatencyMs: z.number().nullable(),
    errorRate: z.number().nullable(),
    positiveFeedback: z.number(),
    negativeFeedback: z.number(),
    /** Positive among rated steps, with its 95% Wilson interval. */
    feedbackRate: z.object({ rate: z.number().nullable(), low: z.number(), high: z.number() }),
    /** Credits charged for the arm's steps. */
    cost: z.number(),
  })
  .meta({ id: 'AbTestArmResult' });

export const AbTestResultsSchema = z.object({
  abTest: AbTestSchema,
  arms: z.array(AbTestArmResultSchema),
  /** The arm whose feedback rate beats every other significantly; null until one does. */
  winner: z.object({ abTestTemplateId: z.string(), pValue: z.number() }).nullable(),
});

export const CreateAbTestBody = z.object({
  name: z.string({ error: NAME_REQUIRED }).trim().min(1, NAME_REQUIRED),
  description: z.string().nullish(),
  projectId: z.string().optional(),
});
export const UpdateAbTestBody = z.object({
  name: z.string({ error: NAME_REQUIRED }).trim().min(1, NAME_REQUIRED).optional(),
  description: z.string().nullish(),
});
const Weight = z.number().int('The weight must be a whole number').min(0, 'The weight must be at least 0').max(1000, 'The weight must be at most 1000');
export const AttachTemplateBody = z.object({
  templateName: z.string().min(1, 'A template version is required'),
  weight: Weight.default(50),
  memoryVariables: z.record(z.string(), z.string()).default({}),
});
export const UpdateAttachmentBody = z.object({ weight: Weight });
export const StopAbTestBody = z.object({ promote: z.boolean().default(false) });
export const AbTestListQuery = PageQuery.extend({ projectId: z.string().optional() });
export const AbTestParams = z.object({ abTestId: z.string() });
export const AttachmentParams = z.object({ abTestId: z.string(), abTestTemplateId: z.string() });

export function abTestToWire(abTest: AbTest): z.infer<typeof AbTestSchema> {
  return {
    id: abTest.id,
    name: abTest.name,
    description: abTest.description,
    organizationId: abTest.organizationId,
    projectId: abTest.projectId,
    status: abTest.status,
    winnerAbTestTemplateId: abTest.winnerArmId,
    stoppedAt: abTest.stoppedAt ? iso(abTest.stoppedAt) : null,
    createdAt: iso(abTest.createdAt),
    updatedAt: iso(abTest.updatedAt),
  };
}

export function attachedTemplateToWire(view: AbTestArmView): z.infer<typeof AbTestTemplateSchema> {
  return {
    id: view.arm.id,
    templateName: `${view.template.name}:${view.version.version}`,
    coreAgentId: view.template.entityId,
    simulatedAgentId: view.simulatedAgentId,
    weight: view.arm.weight,
    memoryVariables: view.arm.memoryVariables,
  };
}

export function armResultToWire(result: AbTestArmResult): z.infer<typeof AbTestArmResultSchema> {
  return {
    abTestTemplateId: result.arm.arm.id,
    templateName: `${result.arm.template.name}:${result.arm.version.version}`,
    weight: result.arm.arm.weight,
    users: result.users,
    runs: result.runs,
    medianLatencyMs: result.medianLatencyMs,
    errorRate: result.errorRate,
    positiveFeedback: result.positive,
    negativeFeedback: result.negative,
    feedbackRate: result.feedbackRate,
    cost: result.cost,
  };
}
