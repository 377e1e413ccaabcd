import { TenantModel } from './base-model.js';

export class AbTest extends TenantModel {
  static override tableName = 'ab_tests';
  declare id: string;
  declare projectId: string;
  declare name: string;
  declare description: string | null;
  declare status: 'running' | 'stopped';
  declare winnerArmId: string | null;
  declare stoppedAt: Date | null;
}

/** An arm: a saved version of a template with its weight. */
export class AbTestTemplate extends TenantModel {
  static override tableName = 'ab_test_templates';
  static override jsonAttributes = ['memoryVariables'];
  declare id: string;
  declare abTestId: string;
  declare templateId: string;
  declare templateVersionId: string;
  declare weight: number;
  /** Values of the version's memory variables for the agents the arm makes; a user's own values come first. */
  declare memoryVariables: Record<string, string>;
}

/** The arm an end user landed on, and the agent made for them there. */
export class AbTestAssignment extends TenantModel {
  static override tableName = 'ab_test_assignments';
  static override idColumn = ['abTestId', 'identity'];
  declare abTestId: string;
  declare identity: string;
  declare armId: string;
  declare agentId: string;
}
