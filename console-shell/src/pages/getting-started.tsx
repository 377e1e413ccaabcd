import { useEffect, useState } from 'react';
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
  TextInput,
  ThemeIcon,
  Title,
  useSession,
  type OnboardingProgress,
  type OnboardingStatus,
} from '@engram/console-kit';
import { IconCircleCheck, IconCircleDashed, IconLockOpen, IconMailCheck } from '@tabler/icons-react';

/**
 * A step of the tour: `title` names the screen where it is done (linked there), `text` what to do on it. A step is
 * done when the organization's data shows it (`OnboardingProgress.doneSteps`) or, for a step with nothing to make
 * (`ticksOnVisit`), once its screen was opened from here.
 */
type Step = { step: string; title: string; text: string; to: (progress: OnboardingProgress | null) => string; ticksOnVisit?: true };

const agentsOf = (progress: OnboardingProgress | null) => (progress?.projectSlug ? `/projects/${progress.projectSlug}/agents` : '/projects');

/** The tour's steps (spec 000 §3), in order; `completed` follows the last. */
const STEPS: readonly Step[] = [
  {
    step: 'about_credits',
    title: 'Look at Billing',
    text: "See your credits, what your agents cost and your plan's limits.",
    to: () => '/billing',
    ticksOnVisit: true,
  },
  {
    step: 'create_template',
    title: 'Create an agent',
    text: 'Agents → New agent: give it a model and memory blocks.',
    to: (progress) => `${agentsOf(progress)}/new`,
  },
  {
    step: 'explore_ade',
    title: 'Send it a first message',
    text: 'Chat with it in its workspace and watch it edit its own memory.',
    to: (progress) => (progress?.agentId ? `${agentsOf(progress)}/${progress.agentId}` : agentsOf(progress)),
  },
  {
    step: 'save_version',
    title: 'Save a template version',
    text: 'Templates → New template from your agent, then Save version in its editor (or publish the agent in Agent files).',
    to: (progress) => `${agentsOf(progress)}/templates`,
  },
  {
    step: 'deploy_agent',
    title: 'Create an API key',
    text: 'Settings → API keys: then your code can talk to your agents.',
    to: () => '/settings/api-keys',
  },
];

const NOT_STARTED: OnboardingStatus = { claimedSteps: [], completedSteps: [], currentStep: null, pausedAt: null };

function StepTitle({ title, to, onOpen }: { title: string; to: string | null; onOpen: () => void }) {
  if (!to) return <>{title}</>;
  return (
    <Anchor component={Link} to={to} inherit onClick={onOpen}>
      {title}
    </Anchor>
  );
}

function useOnboardingAction<T>(action: (input: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: action, onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.self }) });
}

/**
 * The guided tour as a checklist that ticks itself: a step is done when the organization's data shows it (an agent,
 * a message sent to one, a saved version, an API key) or its screen was opened from here; the first open step is the
 * current one. It can be hidden and brought back.
 */
function OnboardingChecklist({ status, progress }: { status: OnboardingStatus; progress: OnboardingProgress | null }) {
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

  const doneByUser = (step: string) =>
    status.completedSteps.includes(step) || status.claimedSteps.includes(step) || (progress?.doneSteps.includes(step) ?? false);
  const allDone = status.currentStep === 'completed' || STEPS.every((entry) => doneByUser(entry.step));
  const isDone = (step: string) => allDone || doneByUser(step);
  const currentIndex = allDone ? -1 : STEPS.findIndex((entry) => !isDone(entry.step));
  const doneCount = STEPS.filter((entry) => isDone(entry.step)).length;
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
          const done = isDone(entry.step);
          const current = index === currentIndex;
          return (
            <Group key={entry.step} wrap="nowrap" align="flex-start" gap="sm" data-testid={`onboarding-step-${entry.step}`} data-done={done}>
              <ThemeIcon variant={done ? 'light' : 'transparent'} color={done ? 'teal' : current ? 'engram' : 'gray'} radius="xl" size={26}>
                {done ? <IconCircleCheck size={18} /> : <IconCircleDashed size={18} />}
              </ThemeIcon>
              <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
                <Text size="sm" fw={current ? 700 : 500} td={done ? 'line-through' : undefined} c={done ? 'dimmed' : undefined}>
                  <StepTitle
                    title={entry.title}
                    to={done ? null : entry.to(progress)}
                    onOpen={() => {
                      if (entry.ticksOnVisit) claim.mutate({ onboardingStep: entry.step, stepToClaim: entry.step });
                    }}
                  />
                </Text>
                {done ? null : (
                  <Text size="xs" c="dimmed">
                    {entry.text}
                  </Text>
                )}
              </Stack>
            </Group>
          );
        })}
      </Stack>
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

/** On a platform that asks for access codes: the organization runs no agent until someone enters one. */
function CloudAccessNotice() {
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const redeem = useMutation({
    mutationFn: () => consoleApi.redeemCloudAccessCode(code.trim()),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.self }),
  });
  return (
    <Alert color="orange" variant="light" icon={<IconLockOpen size={18} />} mb="lg" data-testid="cloud-access-notice">
      <Stack gap="xs">
        <Text size="sm">This organization cannot run agents yet: enter the access code you were given.</Text>
        <Group
          component="form"
          align="flex-end"
          gap="sm"
          onSubmit={(event) => {
            event.preventDefault();
            redeem.mutate();
          }}
        >
          <TextInput label="Access code" size="xs" value={code} onChange={(event) => setCode(event.currentTarget.value)} />
          <Button type="submit" size="xs" disabled={!code.trim()} loading={redeem.isPending}>
            Unlock
          </Button>
        </Group>
        {redeem.error ? <ErrorNotice error={redeem.error} title="That code did not unlock the platform" /> : null}
      </Stack>
    </Alert>
  );
}

/** What a new account still has to do: verify its email, and the onboarding tour until it is finished. */
export function GettingStarted() {
  const { user } = useSession();
  const queryClient = useQueryClient();
  // Progress comes from data other screens change (agents, messages, keys), so it is read afresh here.
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.self });
  }, [queryClient]);
  return (
    <>
      {user.hasCloudAccess ? null : <CloudAccessNotice />}
      {!user.isVerified && user.email ? <VerifyEmailNotice email={user.email} /> : null}
      {user.hasOnboarded ? null : <OnboardingChecklist status={user.onboardingStatus ?? NOT_STARTED} progress={user.onboardingProgress} />}
    </>
  );
}
