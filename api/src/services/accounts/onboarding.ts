import {
  Agent,
  AgentTemplateVersion,
  ApiKey,
  ofVisibleAgent,
  Project,
  PublishedAgentFile,
  Run,
  User,
  VISIBLE_AGENT,
  type Database,
  type OnboardingStatus,
  type OnboardingStep,
} from '@engram/db';
import { NotFoundError } from '../../errors.js';

const NOT_STARTED: OnboardingStatus = { claimedSteps: [], completedSteps: [], currentStep: null, pausedAt: null };

/** What an organization has already done of the tour, read from its data rather than from clicks. */
export type OnboardingProgress = {
  /**
   * `create_template` once it has an agent, `explore_ade` once one of its agents was sent a message, `save_version`
   * once a template version was saved or an agent published as a file, `deploy_agent` once it has an API key.
   */
  doneSteps: OnboardingStep[];
  /** Where its agents are made: the newest agent's project, else the default project. */
  projectSlug: string | null;
  /** Its newest agent, the one to talk to next. */
  agentId: string | null;
};

/**
 * The console's guided tour. Moving to a step completes the one the user was on; a step's reward
 * is claimed at most once; pausing hides the tour until unpaused; `markOnboarded` ends it.
 */
export function createOnboardingService(deps: { db: Database }) {
  const { db } = deps;

  async function change(userId: string, next: (status: OnboardingStatus) => OnboardingStatus): Promise<void> {
    await db.transaction(async (trx) => {
      const user = await User.query(trx).findById(userId).forUpdate();
      if (!user) throw new NotFoundError('User');
      await User.query(trx).findById(userId).patch({ onboardingStatus: next(user.onboardingStatus ?? NOT_STARTED) });
    });
  }

  const withStep = (steps: OnboardingStep[], step: OnboardingStep | null | undefined) =>
    step && !steps.includes(step) ? [...steps, step] : steps;

  return {
    async progress(organizationId: string): Promise<OnboardingProgress> {
      const [newestAgent, firstRun, firstVersion, firstPublished, firstKey, defaultProject] = await Promise.all([
        Agent.query(db).forOrg(organizationId).whereRaw(VISIBLE_AGENT).orderBy('createdAt', 'desc').orderBy('id', 'desc').select('id', 'projectId').first(),
        // A template's simulated agent or an evaluation talking is not the user sending a first message.
        Run.query(db).forOrg(organizationId).whereRaw(ofVisibleAgent('runs')).select('id').first(),
        AgentTemplateVersion.query(db).forOrg(organizationId).select('id').first(),
        PublishedAgentFile.query(db).forOrg(organizationId).select('id').first(),
        ApiKey.query(db).forOrg(organizationId).select('id').first(),
        Project.query(db).forOrg(organizationId).findOne({ isDefault: true }).select('id', 'slug'),
      ]);
      const agentProject = newestAgent?.projectId ? await Project.query(db).forOrg(organizationId).findById(newestAgent.projectId).select('slug') : undefined;
      const doneSteps: OnboardingStep[] = [];
      if (newestAgent) doneSteps.push('create_template');
      if (firstRun) doneSteps.push('explore_ade');
      if (firstVersion || firstPublished) doneSteps.push('save_version');
      if (firstKey) doneSteps.push('deploy_agent');
      return {
        doneSteps,
        projectSlug: agentProject?.slug ?? defaultProject?.slug ?? null,
        agentId: agentProject ? (newestAgent?.id ?? null) : null,
      };
    },

    async claim(userId: string, input: { onboardingStep: OnboardingStep; stepToClaim?: OnboardingStep | undefined }): Promise<void> {
      await change(userId, (status) => ({
        ...status,
        currentStep: input.onboardingStep,
        completedSteps: status.currentStep === input.onboardingStep ? status.completedSteps : withStep(status.completedSteps, status.currentStep),
        claimedSteps: withStep(status.claimedSteps, input.stepToClaim),
      }));
    },

    async pause(userId: string): Promise<void> {
      await change(userId, (status) => ({ ...status, pausedAt: status.pausedAt ?? new Date().toISOString() }));
    },

    async unpause(userId: string): Promise<void> {
      await change(userId, (status) => ({ ...status, pausedAt: null }));
    },

    async markOnboarded(userId: string, input: { reasons: string[]; useCases: string[]; emailConsent: boolean }): Promise<void> {
      const updated = await User.query(db)
        .findById(userId)
        .patch({
          hasOnboarded: true,
          onboardingAnswers: { reasons: input.reasons, useCases: input.useCases },
          marketingConsent: input.emailConsent,
        });
      if (updated === 0) throw new NotFoundError('User');
    },
  };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;
