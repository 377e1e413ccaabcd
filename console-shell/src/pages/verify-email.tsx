import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  ApiError,
  Button,
  Card,
  Code,
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
  type OutboxMessage,
} from '@engram/console-kit';
import { IconCircleCheck, IconMailForward, IconTerminal2 } from '@tabler/icons-react';

/** The six-digit code of the newest verification email (the API writes "Your verification code is 123456."). */
function verificationCodeIn(messages: OutboxMessage[]): string | undefined {
  for (const message of messages) {
    const code = /verification code is (\d{6})/i.exec(message.body)?.[1];
    if (code) return code;
  }
  return undefined;
}

/**
 * Development servers expose the outbox (`GET /api/development/outbox`), so the code can be shown
 * without a mail relay; elsewhere that route answers 404 and nothing shows.
 */
function DevelopmentCode({ sentAt }: { sentAt: number }) {
  const outbox = useQuery({
    queryKey: [...queryKeys.developmentOutbox, sentAt],
    queryFn: () => consoleApi.developmentOutbox({ limit: 5 }),
    retry: false,
  });
  const code = outbox.data ? verificationCodeIn(outbox.data.messages) : undefined;
  if (!code) return null;
  return (
    <Alert color="gray" variant="light" icon={<IconTerminal2 size={18} />} data-testid="development-code">
      Development: your code is <Code fw={700}>{code}</Code>
    </Alert>
  );
}

export function VerifyEmailPage() {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const [sentAt, setSentAt] = useState<number | null>(null);
  const [verificationCode, setVerificationCode] = useState('');
  const start = useMutation({
    mutationFn: () => consoleApi.startEmailVerification(),
    onSuccess: () => setSentAt(Date.now()),
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
        {start.error ? <ErrorNotice error={start.error} title="No new code was sent" /> : null}
        <Card withBorder radius="lg" p="lg">
          <Stack>
            <Group justify="space-between" wrap="wrap" gap="sm">
              <Text size="sm" c="dimmed">
                {sentAt ? 'A code is on its way. It works for a limited time.' : 'Start by asking for a code.'}
              </Text>
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
                <DevelopmentCode sentAt={sentAt} />
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
