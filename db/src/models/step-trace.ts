import { TenantModel } from './base-model.js';

/** The exact provider request and response of a step, for `/steps/{id}/trace`. */
export class StepTrace extends TenantModel {
  static override tableName = 'step_traces';
  static override idColumn = 'stepId';
  static override jsonAttributes = ['requestJson', 'responseJson'];
  declare stepId: string;
  declare runId: string | null;
  declare requestJson: Record<string, unknown> | null;
  declare responseJson: Record<string, unknown> | null;
}
