import { useEffect, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  ApiError,
  Button,
  Card,
  consoleApi,
  ErrorNotice,
  Group,
  Link,
  PageHeader,
  queryKeys,
  Stack,
  Text,
  TextInput,
  useSession,
  useValidatedSubmit,
  type EmailDelivery,
} from '@engram/console-kit';
import { IconCircleCheck, IconMailForward } from '@tabler/icons-react';
import { SentCode } from './development-code.js';

/**
 * What the page keeps across a reload (in the tab's session storage, per account): when a code was last sent, how
 * it went out, and the code typed so far, so reloading neither hides the code field nor loses what was typed.
 */
type KeptVerification = { sentAt: number | null; delivery: EmailDelivery | null; verificationCode: string };

const keptKey = (userId: string) => `engram.email-verification.${userId}`;

function readKept(userId: string): KeptVerification {
  try {
    const kept = JSON.parse(window.sessionStorage.getItem(keptKey(userId)) ?? 'null') as Partial<KeptVerification> | null;
    return { sentAt: kept?.sentAt ?? null, delivery: kept?.delivery ?? null, verificationCode: kept?.verificationCode ?? '' };
  } catch {
    return { sentAt: null, delivery: null, verificationCode: '' };
  }
}

export function VerifyEmailPage() {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const [kept] = useState(() => readKept(user.id));
  const [sentAt, setSentAt] = useState<number | null>(kept.sentAt);
  // How the last code went out; unknown when the page only learnt that one was sent a moment ago.
  const [delivery, setDelivery] = useState<EmailDelivery | null>(kept.delivery);
  const [verificationCode, setVerificationCode] = useState(kept.verificationCode);
  useEffect(() => {
    if (user.isVerified) window.sessionStorage.removeItem(keptKey(user.id));
    else window.sessionStorage.setItem(keptKey(user.id), JSON.stringify({ sentAt, delivery, verificationCode } satisfies KeptVerification));
  }, [user.id, user.isVerified, sentAt, delivery, verificationCode]);
  const start = useMutation({
    mutationFn: () => consoleApi.startEmailVerification(),
    onSuccess: (started) => {
      setDelivery(started.emailDelivery);
      setSentAt(Date.now());
    },
    onError: (error) => {
      // A code sent a moment ago still works: let the user type it in.
      if (error instanceof ApiError && error.errorCode === 'tooEarly') setSentAt((previous) => previous ?? Date.now());
    },
  });
  const complete = useMutation({
    mutationFn: () => consoleApi.completeEmailVerification({ verificationCode: verificationCode.trim() }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.self }),
  });
  const { errors, onSubmit } = useValidatedSubmit('emailVerification', { verificationCode }, () => complete.mutate());

  if (user.isVerified) {
    return (
      <>
        <PageHeader title="Verify your email" />
        <Stack maw={560}>
          <Alert color="teal" variant="light" icon={<IconCircleCheck size={18} />} title="Your email is verified" data-testid="email-verified">
            <Stack gap="sm" align="flex-start">
              <Text size="sm">{user.email} is confirmed as yours.</Text>
              <Button component={Link} to="/projects" size="xs" variant="light" color="teal">
                Continue to projects
              </Button>
            </Stack>
          </Alert>
        </Stack>
      </>
    );
  }

  return (
    <>
      <PageHeader title="Verify your email" description={`We send a six-digit code to ${user.email ?? 'your email address'} to confirm it is yours.`} />
      <Stack maw={560}>
        {start.error ? (
          <ErrorNotice error={start.error} title={start.error instanceof ApiError && start.error.errorCode === 'tooEarly' ? 'Not yet' : 'No new code was sent'} />
        ) : null}
        <Card withBorder radius="lg" p="lg">
          <Stack>
            <Group justify={sentAt ? 'flex-end' : 'space-between'} wrap="wrap" gap="sm">
              {sentAt ? null : (
                <Text size="sm" c="dimmed">
                  Start by asking for a code.
                </Text>
              )}
              <Button
                variant={sentAt ? 'default' : 'filled'}
                leftSection={<IconMailForward size={16} />}
                loading={start.isPending}
                onClick={() => start.mutate()}
              >
                {sentAt ? 'Send a new code' : 'Email me a code'}
              </Button>
            </Group>
            {sentAt ? (
              <>
                <SentCode sentAt={sentAt} delivery={delivery} purpose="verification" />
                <form onSubmit={onSubmit} noValidate>
                  <Stack>
                    {complete.error ? <ErrorNotice error={complete.error} title="The email was not verified" /> : null}
                    <TextInput
                      label="Code"
                      placeholder="123456"
                      inputMode="numeric"
                      autoComplete="one-time-code"
                      value={verificationCode}
                      onChange={(event) => setVerificationCode(event.currentTarget.value)}
                      error={errors.verificationCode}
                      maw={220}
                      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', letterSpacing: '0.2em' } }}
                    />
                    <Group>
                      <Button type="submit" loading={complete.isPending}>
                        Verify email
                      </Button>
                    </Group>
                  </Stack>
                </form>
              </>
            ) : null}
          </Stack>
        </Card>
        <Text size="sm" c="dimmed">
          You can do this later:{' '}
          <Anchor component={Link} to="/projects">
            go to projects
          </Anchor>
          .
        </Text>
      </Stack>
    </>
  );
}
