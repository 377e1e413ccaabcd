import { TenantModel } from './base-model.js';

export class Step extends TenantModel {
  static override tableName = 'steps';
  static override jsonAttributes = ['errorData', 'outcome'];
  declare id: string;
  declare projectId: string | null;
  declare runId: string | null;
  declare agentId: string | null;
  declare stepIndex: number;
  declare origin: string | null;
  declare providerId: string | null;
  declare providerName: string | null;
  declare providerCategory: string | null;
  declare model: string | null;
  declare modelHandle: string | null;
  declare modelEndpoint: string | null;
  declare contextWindowLimit: number | null;
  declare completionTokens: number;
  declare promptTokens: number;
  declare totalTokens: number;
  declare stopReason: string | null;
  declare tags: string[];
  declare tid: string | null;
  declare traceId: string | null;
  declare feedback: 'positive' | 'negative' | null;
  declare errorType: string | null;
  declare errorData: Record<string, unknown> | null;
  declare status: string;
  declare stepStartNs: string | number | null;
  declare llmRequestStartNs: string | number | null;
  declare llmRequestNs: string | number | null;
  declare toolExecutionNs: string | number | null;
  declare stepNs: string | number | null;
  declare outcome: Record<string, unknown> | null;
}
