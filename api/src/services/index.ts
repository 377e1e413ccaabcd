import type { Database, SecretBox } from '@engram/db';
import type { PaymentGateway } from '@engram/integrations/payments';
import type { EgressPolicy } from '@engram/integrations/egress';
import type { Client } from '@temporalio/client';
import { createApiKeyService } from './tenancy/api-keys.js';
import { createTierLimitGuard } from './tenancy/tier-limits.js';
import { createOrganizationService } from './tenancy/organizations.js';
import { createAccountServices, type AccountServiceOptions } from './accounts/index.js';
import { createPostgresRateLimiter } from './accounts/rate-limiter.js';
import {
  createAgentRunClient,
  createAutoTopUpClient,
  createFileIngestionClient,
  createGroupTurnClient,
  createMessageBatchClient,
  createTemplateMigrationClient,
  createLettaImportClient,
  createDatasetRunClient,
  createScheduledMessageClient,
} from '@engram/temporal/client';
import { createGroupService } from './groups/group-service.js';
import { createGroupMessageService } from './groups/group-message-service.js';
import { followGroupTurn, type FollowTurnOptions } from './groups/group-turn-reader.js';
import { createBatchService } from './batches/batch-service.js';
import { createJobService } from './runs/job-service.js';
import { createScheduleService } from './schedules/schedule-service.js';
import { createChatCompletionService } from './chat-completions/chat-completion-service.js';
import { createLettaImportService } from './letta-imports/letta-import-service.js';
import { createMessageService } from './messages/message-service.js';
import { createMessageHistoryService } from './messages/message-history-service.js';
import { createConversationService } from './conversations/conversation-service.js';
import { createCompactContext } from '@engram/integrations/compaction';
import { createStepService } from './steps/step-service.js';
import type { NotificationHub } from './runs/notification-hub.js';
import { followRunLog, type FollowOptions } from './runs/run-log-reader.js';
import { createRunService } from './runs/run-service.js';
import { createAgentService } from './agents/agent-service.js';
import { createAgentToolService } from './agents/agent-tools-service.js';
import { createContextWindowService } from './agents/context-window-service.js';
import { createCoreMemoryService } from './agents/core-memory-service.js';
import { createBlockService } from './blocks/block-service.js';
import { createIdentityService } from './identities/identity-service.js';
import { createAgentTagService } from './identities/agent-tag-service.js';
import { createModelService } from './models/model-service.js';
import { createMcpConnectionPool, type McpConnectionPool, type McpStdioPolicy } from '@engram/integrations/mcp';
import { createMcpServices } from './mcp/index.js';
import { createArchivalServices } from './archival/index.js';
import { createAgentFileService } from './agent-files/agent-file-service.js';
import { createToolService } from './tools/tool-service.js';
import { createToolGenerator } from './tools/tool-generator.js';
import { createSandboxConfigService } from './sandbox/sandbox-config-service.js';
import { createVenvManager } from '@engram/integrations/sandbox';
import { defaultVenvRoot, createExecuteTool } from '@engram/integrations/tools';
import { createProviderService } from './providers/provider-service.js';
import type { BaseProvider } from './providers/types.js';
import { createAgentToolRunService } from './agents/agent-tool-run-service.js';
import { createFolderService } from './folders/folder-service.js';
import { createAgentFolderService } from './agents/agent-folders-service.js';
import { createClientSideAccessTokenService } from './access-tokens/client-side-access-tokens.js';
import { createOAuthServices } from './oauth/index.js';
import { createBlockTemplateService } from './templates/block-template-service.js';
import { createSimulatedAgentService } from './templates/simulated-agent-service.js';
import { createTemplateService } from './templates/template-service.js';
import { createDatasetService } from './datasets/dataset-service.js';
import { createAbTestService } from './ab-tests/ab-test-service.js';
import { createBillingServices, type BillingMode } from './billing/index.js';
import { createAdminServices } from './admin/index.js';
import { createObservabilityServices } from './observability/index.js';
import { createAgentFileGalleryService } from './sharing/agent-file-gallery-service.js';
import { createLaunchLinkService } from './sharing/launch-link-service.js';
import { createSharedChatService } from './sharing/shared-chat-service.js';

export type ServiceDeps = {
  db: Database;
  temporal: Client;
  taskQueue: string;
  secrets: SecretBox;
  baseProviders: BaseProvider[];
  /**
   * What URLs organizations supply (callbacks, MCP servers, their model providers) may reach: checked when they are
   * given and when they are connected to. Built once at start from `ApiConfig.egress`.
   */
  egress: EgressPolicy;
  /** Which organizations may run stdio MCP servers and the sandbox they run in; built once at start from `ApiConfig.mcpStdio`. */
  mcpStdio: McpStdioPolicy;
  notifications: NotificationHub;
  /** The process's MCP connections (tests pass one with short timeouts); one is made otherwise. */
  mcpConnections?: McpConnectionPool;
  /** Where users and apps reach the API (`ApiConfig.publicUrl`); the OAuth issuer is `<publicUrl>/oauth`. */
  publicUrl?: string;
  /** ENGRAM_BILLING (`ApiConfig.billing`): `off` (default) meters without refusing, `on` enforces tiers and credits. */
  billingMode?: BillingMode;
  /** Card payments (Stripe, from `ApiConfig.payments`); without one, card operations answer an error naming STRIPE_SECRET_KEY. */
  payments?: PaymentGateway;
  /** ENGRAM_ADMIN_EMAILS (`ApiConfig.adminEmails`): accounts with these emails are platform admins. */
  adminEmails?: readonly string[];
  /** ENGRAM_CLOUD_ACCESS_CODES (`ApiConfig.cloudAccessCodes`): without any, every organization may run agents. */
  cloudAccessCodes?: readonly string[];
} & Pick<AccountServiceOptions, 'notifier' | 'rateLimiter' | 'supportChatSecret'>;

/** The default listen address, for compositions (tests) that do not say where they are reached. */
const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8283';

/** Services are shared by the `/v1` and console routes; built once per process. */
export function createServices(deps: ServiceDeps) {
  // The tier limits of spec 000 §9, enforced where things are created when ENGRAM_BILLING=on.
  const limits = createTierLimitGuard({ mode: deps.billingMode ?? 'off' });
  const apiKeys = createApiKeyService({ db: deps.db, limits });
  const organizations = createOrganizationService({ db: deps.db, apiKeys });
  const topUps = createAutoTopUpClient({ client: deps.temporal, taskQueue: deps.taskQueue });
  const billingServices = createBillingServices({
    db: deps.db,
    mode: deps.billingMode ?? 'off',
    gateway: deps.payments,
    requestTopUp: (organizationId) => topUps.request(organizationId),
  });
  const agentRuns = createAgentRunClient({ client: deps.temporal, taskQueue: deps.taskQueue });
  const messages = createMessageService({ db: deps.db });
  // One limiter for every budget (sign-in, password reset, access codes): its counters live in PostgreSQL.
  const rateLimiter = deps.rateLimiter ?? createPostgresRateLimiter({ db: deps.db });
  const accountServices = createAccountServices({
    db: deps.db,
    secrets: deps.secrets,
    notifier: deps.notifier,
    rateLimiter,
    supportChatSecret: deps.supportChatSecret,
    limits,
    referrals: billingServices.referrals,
  });
  const admin = createAdminServices({
    db: deps.db,
    agentRuns,
    deleteAccount: (userId) => accountServices.accounts.delete(userId),
    adminEmails: deps.adminEmails ?? [],
    cloudAccessCodes: deps.cloudAccessCodes ?? [],
    rateLimiter,
  });
  const runs = createRunService({
    db: deps.db,
    agentRuns,
    messages,
    egress: deps.egress,
    admitCloudAccess: admin.cloudAccess.assertMayRun,
    admitBilledRun: billingServices.quotas.admitRun,
    admitModelRequest: (organizationId, runId, llmConfig) => admin.modelRateLimits.admit(organizationId, runId, llmConfig),
  });
  const compactContext = createCompactContext({ db: deps.db, baseProviders: deps.baseProviders, secrets: deps.secrets, egress: deps.egress });
  const messageHistory = createMessageHistoryService({ db: deps.db, compactContext });
  const steps = createStepService({ db: deps.db, messages });
  const runLog = { follow: (options: FollowOptions) => followRunLog({ db: deps.db, notifications: deps.notifications }, options) };
  const providers = createProviderService({ db: deps.db, secrets: deps.secrets, baseProviders: deps.baseProviders, egress: deps.egress });
  const models = createModelService({ providers });
  const conversations = createConversationService({ db: deps.db, runs, messages, compactContext, models });
  const batches = createBatchService({ db: deps.db, messageBatches: createMessageBatchClient({ client: deps.temporal, taskQueue: deps.taskQueue }), egress: deps.egress });
  const groups = createGroupService({
    db: deps.db,
    organizations,
    admitGroup: (trx, organizationId) => limits.assertWithinLimit(trx, organizationId, 'groups'),
  });
  const groupMessages = createGroupMessageService({ db: deps.db, groupTurns: createGroupTurnClient({ client: deps.temporal, taskQueue: deps.taskQueue }) });
  const groupTurnLog = { follow: (options: FollowTurnOptions) => followGroupTurn({ db: deps.db, notifications: deps.notifications }, options) };
  const agents = createAgentService({
    db: deps.db,
    secrets: deps.secrets,
    models,
    organizations,
    limits,
    sleeptimeGroups: groups.sleeptimeGroups,
  });
  const coreMemory = createCoreMemoryService({ db: deps.db, secrets: deps.secrets });
  const agentTools = createAgentToolService({ db: deps.db });
  const contextWindow = createContextWindowService({ db: deps.db });
  const blocks = createBlockService({ db: deps.db, secrets: deps.secrets, organizations, limits });
  const identities = createIdentityService({ db: deps.db, secrets: deps.secrets, organizations });
  const agentTags = createAgentTagService({ db: deps.db });
  const mcpConnections = deps.mcpConnections ?? createMcpConnectionPool();
  const mcp = createMcpServices({ db: deps.db, secrets: deps.secrets, agentTools, connections: mcpConnections, egress: deps.egress, stdio: deps.mcpStdio });
  const agentFiles = createAgentFileService({ db: deps.db, secrets: deps.secrets, models, organizations, limits });
  // One manager per process, so the tools and sandbox-config routes never build the same venv at once.
  const venvs = createVenvManager({ root: defaultVenvRoot() });
  const tools = createToolService({ db: deps.db, secrets: deps.secrets, venvs, limits, egress: deps.egress });
  const toolGenerator = createToolGenerator({ models, providers });
  const sandboxConfigs = createSandboxConfigService({ db: deps.db, secrets: deps.secrets, venvs });
  const agentToolRuns = createAgentToolRunService({
    db: deps.db,
    executeTool: createExecuteTool({ db: deps.db, secrets: deps.secrets, baseProviders: deps.baseProviders, venvs, mcpConnections, egress: deps.egress, mcpStdio: deps.mcpStdio }),
  });
  const fileIngestion = createFileIngestionClient({ client: deps.temporal, taskQueue: deps.taskQueue });
  const folders = createFolderService({ db: deps.db, models, fileIngestion, limits });
  const agentFolders = createAgentFolderService({ db: deps.db, secrets: deps.secrets });
  const simulatedAgents = createSimulatedAgentService({ db: deps.db, agents, messageHistory });
  const templates = createTemplateService({
    db: deps.db,
    agents,
    agentFiles,
    organizations,
    migrations: createTemplateMigrationClient({ client: deps.temporal, taskQueue: deps.taskQueue }),
    simulatedAgents,
    limits,
  });
  const blockTemplates = createBlockTemplateService({ db: deps.db, templates, organizations });
  const sharedChats = createSharedChatService({ db: deps.db, agentFiles, agents, runs, messages, rateLimiter });
  const datasets = createDatasetService({
    db: deps.db,
    organizations,
    templates,
    runs: createDatasetRunClient({ client: deps.temporal, taskQueue: deps.taskQueue }),
  });
  const abTests = createAbTestService({ db: deps.db, organizations, templates, limits });
  return {
    apiKeys,
    organizations,
    ...accountServices,
    ...admin,
    runs,
    ...createObservabilityServices({ db: deps.db }),
    messages,
    runLog,
    groups,
    groupMessages,
    groupTurnLog,
    messageHistory,
    conversations,
    steps,
    providers,
    models,
    agents,
    coreMemory,
    agentTools,
    contextWindow,
    blocks,
    identities,
    agentTags,
    ...mcp,
    ...createArchivalServices({ db: deps.db, secrets: deps.secrets, baseProviders: deps.baseProviders, egress: deps.egress, models }),
    agentFiles,
    tools,
    toolGenerator,
    sandboxConfigs,
    agentToolRuns,
    folders,
    agentFolders,
    templates,
    simulatedAgents,
    blockTemplates,
    sharedChats,
    launchLinks: createLaunchLinkService({ db: deps.db, templates, agents, sharedChats, rateLimiter }),
    agentFileGallery: createAgentFileGalleryService({ db: deps.db, agentFiles }),
    datasets,
    abTests,
    lettaImports: createLettaImportService({
      db: deps.db,
      secrets: deps.secrets,
      egress: deps.egress,
      organizations,
      runs: createLettaImportClient({ client: deps.temporal, taskQueue: deps.taskQueue }),
    }),
    batches,
    jobs: createJobService({ db: deps.db, runs, batches }),
    chatCompletions: createChatCompletionService({ runs, follow: runLog.follow }),
    schedules: createScheduleService({ db: deps.db, scheduledMessages: createScheduledMessageClient({ client: deps.temporal, taskQueue: deps.taskQueue }), egress: deps.egress }),
    clientSideAccessTokens: createClientSideAccessTokenService({ db: deps.db }),
    ...billingServices,
    ...createOAuthServices({ db: deps.db, secrets: deps.secrets, issuer: `${deps.publicUrl ?? DEFAULT_PUBLIC_URL}/oauth` }),
  };
}

export type AppServices = ReturnType<typeof createServices>;
