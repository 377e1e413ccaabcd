import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Button,
  Card,
  consoleApi,
  ErrorNotice,
  Group,
  Link,
  queryKeys,
  Stack,
  Text,
  ThemeIcon,
  Title,
  useSession,
  type OnboardingStatus,
} from '@engram/console-kit';
import { IconCircleCheck, IconCircleDashed, IconMailCheck, IconPlayerPlay } from '@tabler/icons-react';

/** The tour's steps (spec 000 §3), in order; `completed` follows the last. */
const STEPS = [
  {
    step: 'about_credits',
    title: 'Know your limits',
    text: 'Each plan caps how many projects, agents and members an organization has; the console says when you reach one.',
  },
  { step: 'create_template', title: 'Create an agent', text: 'Open a project and give an agent a model and memory blocks.', link: '/projects' },
  { step: 'explore_ade', title: 'Chat with it', text: 'Send it messages in the agent workspace and watch it edit its own memory.' },
  { step: 'save_version', title: 'Save a version', text: 'Export the agent as a file to keep or share it as it is now.' },
  { step: 'deploy_agent', title: 'Call it from your code', text: 'Create an API key and send messages through the /v1 API.', link: '/settings/api-keys' },
] as const;

const NOT_STARTED: OnboardingStatus = { claimedSteps: [], completedSteps: [], currentStep: null, pausedAt: null };

function useOnboardingAction<T>(action: (input: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: action, onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.self }) });
}

/** The guided tour as a checklist: one step at a time, each done step claimed; it can be hidden and brought back. */
function OnboardingChecklist({ status }: { status: OnboardingStatus }) {
  // Moving to the next step completes the current one and claims it (services/accounts/onboarding.ts).
  const claim = useOnboardingAction((input: { onboardingStep: string; stepToClaim?: string }) => consoleApi.claimOnboardingStep(input));
  const pause = useOnboardingAction(() => consoleApi.pauseOnboarding());
  const unpause = useOnboardingAction(() => consoleApi.unpauseOnboarding());
  const finish = useOnboardingAction(() => consoleApi.finishOnboarding({ reasons: [], useCases: [], emailConsent: false }));
  const error = claim.error ?? pause.error ?? unpause.error ?? finish.error;

  if (status.pausedAt) {
    return (
      <Group gap="xs" mb="lg" data-testid="onboarding-paused">
        <Text size="sm" c="dimmed">
          Getting started is hidden.
        </Text>
        <Anchor component="button" size="sm" onClick={() => unpause.mutate(undefined)}>
          Show it again
        </Anchor>
      </Group>
    );
  }

  const currentIndex = STEPS.findIndex((entry) => entry.step === status.currentStep);
  const allDone = status.currentStep === 'completed';
  const doneCount = allDone ? STEPS.length : STEPS.filter((entry) => status.completedSteps.includes(entry.step)).length;
  return (
    <Card withBorder radius="lg" p="lg" mb="lg" data-testid="onboarding-checklist">
      <Group justify="space-between" align="flex-start" wrap="nowrap" mb="md">
        <Stack gap={2}>
          <Title order={3} fz="h4">
            Getting started
          </Title>
          <Text size="sm" c="dimmed" data-testid="onboarding-progress">
            {doneCount} of {STEPS.length} done
          </Text>
        </Stack>
        <Group gap="xs" wrap="nowrap">
          {allDone ? (
            <Button size="xs" loading={finish.isPending} onClick={() => finish.mutate(undefined)}>
              Finish
            </Button>
          ) : (
            <Button size="xs" variant="subtle" color="gray" loading={pause.isPending} onClick={() => pause.mutate(undefined)}>
              Hide for now
            </Button>
          )}
        </Group>
      </Group>
      {error ? <ErrorNotice error={error} title="That did not work" /> : null}
      <Stack gap="sm">
        {STEPS.map((entry, index) => {
          const done = allDone || status.completedSteps.includes(entry.step);
          const current = index === currentIndex;
          return (
            <Group key={entry.step} wrap="nowrap" align="flex-start" gap="sm" data-testid={`onboarding-step-${entry.step}`} data-done={done}>
              <ThemeIcon variant={done ? 'light' : 'transparent'} color={done ? 'teal' : current ? 'engram' : 'gray'} radius="xl" size={26}>
                {done ? <IconCircleCheck size={18} /> : <IconCircleDashed size={18} />}
              </ThemeIcon>
              <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
                <Text size="sm" fw={current ? 700 : 500} td={done ? 'line-through' : undefined} c={done ? 'dimmed' : undefined}>
                  {'link' in entry && !done ? (
                    <Anchor component={Link} to={entry.link} inherit>
                      {entry.title}
                    </Anchor>
                  ) : (
                    entry.title
                  )}
                </Text>
                {done ? null : (
                  <Text size="xs" c="dimmed">
                    {entry.text}
                  </Text>
                )}
              </Stack>
              {current ? (
                <Button
                  size="compact-sm"
                  variant="light"
                  loading={claim.isPending}
                  onClick={() => claim.mutate({ onboardingStep: STEPS[index + 1]?.step ?? 'completed', stepToClaim: entry.step })}
                >
                  Done
                </Button>
              ) : null}
            </Group>
          );
        })}
      </Stack>
      {currentIndex === -1 && !allDone ? (
        <Button
          mt="md"
          size="xs"
          leftSection={<IconPlayerPlay size={14} />}
          loading={claim.isPending}
          onClick={() => claim.mutate({ onboardingStep: STEPS[0].step })}
        >
          Start
        </Button>
      ) : null}
    </Card>
  );
}

function VerifyEmailNotice({ email }: { email: string }) {
  return (
    <Alert color="engram" variant="light" icon={<IconMailCheck size={18} />} mb="lg" data-testid="verify-email-notice">
      <Group justify="space-between" gap="sm">
        <Text size="sm">
          Confirm that <b>{email}</b> is yours, so password resets and invitations reach you.
        </Text>
        <Button component={Link} to="/verify-email" size="xs">
          Verify email
        </Button>
      </Group>
    </Alert>
  );
}

/** What a new account still has to do: verify its email, and the onboarding tour until it is finished. */
export function GettingStarted() {
  const { user } = useSession();
  return (
    <>
      {!user.isVerified && user.email ? <VerifyEmailNotice email={user.email} /> : null}
      {user.hasOnboarded ? null : <OnboardingChecklist status={user.onboardingStatus ?? NOT_STARTED} />}
    </>
  );
}
