import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ONBOARDING_STEPS } from '@engram/db';
import { requireAccount } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { success, Success } from './schemas.js';

const OnboardingStepSchema = z.enum(ONBOARDING_STEPS);

export const OnboardingStatusSchema = z.object({
  claimedSteps: z.array(OnboardingStepSchema),
  completedSteps: z.array(OnboardingStepSchema),
  currentStep: OnboardingStepSchema.nullable(),
  pausedAt: z.string().nullable(),
});

export const OnboardingProgressSchema = z.object({
  doneSteps: z.array(OnboardingStepSchema),
  projectSlug: z.string().nullable(),
  agentId: z.string().nullable(),
});

/** The console's guided tour (spec 000 §4). */
export function onboardingRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/user/self/onboarding/claim',
      {
        schema: {
          tags: ['console: onboarding'],
          summary: 'Move to a step, optionally claiming one',
          body: z.object({ onboardingStep: OnboardingStepSchema, stepToClaim: OnboardingStepSchema.optional() }),
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.onboarding.claim(requireAccount(request).userId, request.body);
        return success;
      },
    );

    app.post(
      '/user/self/onboarding/pause',
      { schema: { tags: ['console: onboarding'], response: { 200: Success } } },
      async (request) => {
        await services.onboarding.pause(requireAccount(request).userId);
        return success;
      },
    );

    app.post(
      '/user/self/onboarding/unpause',
      { schema: { tags: ['console: onboarding'], response: { 200: Success } } },
      async (request) => {
        await services.onboarding.unpause(requireAccount(request).userId);
        return success;
      },
    );

    app.post(
      '/user/self/onboarded',
      {
        schema: {
          tags: ['console: onboarding'],
          summary: 'Finish onboarding with the answers to its questions',
          body: z.object({ reasons: z.array(z.string()), useCases: z.array(z.string()), emailConsent: z.boolean() }),
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.onboarding.markOnboarded(requireAccount(request).userId, request.body);
        return success;
      },
    );
  };
}
