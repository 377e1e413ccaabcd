export { BaseModel, TenantModel, TenantQueryBuilder } from './base-model.js';
export { Organization, type BillingTier } from './organization.js';
export {
  RegisteredModel,
  InferenceModel,
  EmbeddingModel,
  OrganizationModelRateLimit,
  ContentViolation,
  WhitelistedEmail,
  SsoConfiguration,
  type ModelTier,
} from './platform-admin.js';
export { User, ONBOARDING_STEPS, type UserPermission, type OnboardingStep, type OnboardingStatus } from './user.js';
export { OrganizationMember, type Role } from './organization-member.js';
export { Session } from './session.js';
export { VerificationCode, type VerificationPurpose } from './verification-code.js';
export { OutboxMessage, type OutboxChannel } from './outbox-message.js';
export { OrganizationInvite } from './organization-invite.js';
export { VerifiedDomain, InviteRule } from './verified-domain.js';
export { ProjectFavorite } from './project-favorite.js';
export { EnvironmentVariable } from './environment-variable.js';
export { DevelopmentServer } from './development-server.js';
export { AdePreference } from './ade-preference.js';
export { Project } from './project.js';
export { ApiKey } from './api-key.js';
export {
  ClientSideAccessToken,
  AGENT_ACCESS_SCOPES,
  newClientSideAccessTokenId,
  type AgentAccessScope,
  type AgentAccessGrant,
} from './client-side-access-token.js';
export {
  OAuthApp,
  OAuthConnection,
  OAuthProviderRecord,
  OAUTH_GRANT_TYPES,
  newOAuthAppId,
  newOAuthConnectionId,
  type OAuthGrantType,
} from './oauth.js';
export {
  AgentTemplate,
  AgentTemplateVersion,
  TemplateDeployment,
  BlockTemplate,
  TemplateMigration,
  TemplateMigrationAgent,
  SimulatedAgent,
  type TemplateMigrationStatus,
  type MigrationAgentStatus,
} from './agent-template.js';
export { AbTest, AbTestTemplate, AbTestAssignment } from './ab-test.js';
export {
  Dataset,
  DatasetItem,
  DatasetRun,
  DatasetRunResult,
  type DatasetMessage,
  type DatasetScorer,
  type DatasetRunStatus,
  type DatasetResultStatus,
} from './dataset.js';
export { Agent, type LlmConfig, type EmbeddingConfig, type ToolRule } from './agent.js';
export { Block, AgentBlock } from './block.js';
export { Identity, IdentityAgent, IdentityBlock, type IdentityType, type IdentityProperty } from './identity.js';
export { Tool, AgentTool, type ToolJsonSchema } from './tool.js';
export {
  SandboxConfig,
  SandboxEnvironmentVariable,
  type SandboxType,
  type SandboxSettings,
  type LocalSandboxSettings,
  type E2BSandboxSettings,
  type ModalSandboxSettings,
  type SandboxPipRequirement,
} from './sandbox-config.js';
export { McpServer, MCP_SERVER_TYPES, newMcpServerId, type McpServerType } from './mcp-server.js';
export { McpOAuthSession, newMcpOAuthSessionId, type McpOAuthSessionStatus } from './mcp-oauth-session.js';
export { Archive, ArchiveAgent } from './archive.js';
export { Passage, PassageVector } from './passage.js';
export {
  Source,
  SourceFile,
  FileUpload,
  SourceAgent,
  FileAgent,
  FILE_PROCESSING_STATUSES,
  type FileProcessingStatus,
} from './source.js';
export { Provider } from './provider.js';
export { Run, RunEvent, type RunStatus, type RunUsage } from './run.js';
export { MessageBatch, MessageBatchItem, type BatchStatus, type BatchItemStatus } from './message-batch.js';
export { ScheduledMessage, type MessageSchedule, type ScheduledMessagePayload } from './scheduled-message.js';
export { Step } from './step.js';
export {
  Group,
  GroupAgent,
  GroupBlock,
  GroupTurn,
  AgentCall,
  GROUP_MANAGER_TYPES,
  type GroupManagerType,
  type GroupTurnStatus,
  type AgentCallStatus,
} from './group.js';
export { StepTrace } from './step-trace.js';
export { Trace, TraceSpan } from './trace.js';
export {
  Message,
  type MessageRole,
  type ContentPart,
  type StoredToolCall,
  type StoredToolReturn,
  type StoredApproval,
} from './message.js';
export {
  BillingAccount,
  CreditTransaction,
  ModelStepCost,
  Payment,
  GiftCode,
  GiftCodeRedemption,
  ReferralConfiguration,
  Referral,
  newTransactionId,
  newPaymentId,
  newGiftCodeId,
  newRedemptionId,
  newReferralId,
  type TransactionType,
  type TransactionSource,
  type CreditModelTier,
  type StepCostEntry,
  type PaymentKind,
  type PricingModel,
  type BillingMethod,
  type PaymentStatus,
  PaymentCard,
  type CardAddress,
} from './billing.js';
export {
  LaunchLink,
  SharedChat,
  SharedChatConversation,
  PublishedAgentFile,
  AgentFileVote,
  SHARE_ACCESS_LEVELS,
  AGENT_FILE_ACCESS_LEVELS,
  type ShareAccessLevel,
  type AgentFileAccessLevel,
} from './sharing.js';
export { Conversation, ConversationBlock } from './conversation.js';
export { VISIBLE_AGENT, VISIBLE_BLOCK, VISIBLE_IDENTITY, ofVisibleAgent, type AgentHiddenKind, type IdentityHiddenKind } from './hidden.js';
export {
  LettaImport,
  LettaImportAgent,
  LettaImportMapping,
  type LettaImportStatus,
  type LettaImportPhase,
  type LettaImportPlan,
  type LettaImportProblem,
  type LettaImportAgentStatus,
  type LettaImportKind,
} from './letta-import.js';
