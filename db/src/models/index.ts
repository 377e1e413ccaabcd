export { BaseModel, TenantModel, TenantQueryBuilder } from './base-model.js';
export { Organization } from './organization.js';
export { User, type Role } from './user.js';
export { Project } from './project.js';
export { ApiKey } from './api-key.js';
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
export { Provider } from './provider.js';
export { Run, RunEvent, type RunStatus, type RunUsage } from './run.js';
export { Step } from './step.js';
export { StepTrace } from './step-trace.js';
export {
  Message,
  type MessageRole,
  type ContentPart,
  type StoredToolCall,
  type StoredToolReturn,
  type StoredApproval,
} from './message.js';
