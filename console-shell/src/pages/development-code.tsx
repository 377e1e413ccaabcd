import { useQuery } from '@tanstack/react-query';
import { Alert, ApiError, Code, consoleApi, queryKeys, Text, type EmailDelivery, type OutboxMessage } from '@engram/console-kit';
import { IconMailOff, IconTerminal2 } from '@tabler/icons-react';

/** What a code was sent for, as the API words its message ("Your verification code is 123456."). */
export type CodePurpose = 'verification' | 'password reset';

/** The six-digit code of the newest message for the purpose. */
function codeIn(messages: OutboxMessage[], purpose: CodePurpose): string | undefined {
  const pattern = new RegExp(`${purpose} code is (\\d{6})`, 'i');
  for (const message of messages) {
    const code = pattern.exec(message.body)?.[1];
    if (code) return code;
  }
  return undefined;
}

const NO_MAIL_SERVER = 'No email was sent: this server has no mail server set up (ENGRAM_SMTP_URL).';

/**
 * Where the code just sent to the signed-in user's own address is. With a mail server, in their
 * inbox. Without one, nothing was emailed: development servers expose the outbox
 * (`GET /api/development/outbox`), so the code shows here; elsewhere (404) the screen says where it
 * waits instead of pretending an email is on its way.
 */
export function SentCode({ sentAt, delivery, purpose }: { sentAt: number; delivery: EmailDelivery | null; purpose: CodePurpose }) {
  const outbox = useQuery({
    queryKey: [...queryKeys.developmentOutbox, sentAt],
    queryFn: () => consoleApi.developmentOutbox({ limit: 5 }),
    enabled: delivery === 'outbox',
    retry: false,
  });
  if (delivery === 'smtp') {
    return (
      <Text size="sm" c="dimmed" data-testid="code-delivery">
        A code is on its way to your inbox. It works for a limited time.
      </Text>
    );
  }
  if (delivery === null) {
    return (
      <Text size="sm" c="dimmed" data-testid="code-delivery">
        Enter the code you were sent. It works for a limited time.
      </Text>
    );
  }
  const code = outbox.data ? codeIn(outbox.data.messages, purpose) : undefined;
  if (code) {
    return (
      <Alert color="gray" variant="light" icon={<IconTerminal2 size={18} />} data-testid="development-code">
        Development: your code is <Code fw={700}>{code}</Code>
      </Alert>
    );
  }
  if (outbox.error instanceof ApiError && outbox.error.status === 404) return <NoMailServer />;
  return null;
}

/** Said where a code went nowhere and this browser cannot read it: who can, and (given the address) how. */
export function NoMailServer({ recipient }: { recipient?: string | undefined }) {
  return (
    <Alert color="yellow" variant="light" icon={<IconMailOff size={18} />} data-testid="no-mail-server">
      {NO_MAIL_SERVER} The code waits in the server&apos;s outbox, where whoever runs this server can read it
      {recipient ? ':' : '.'}
      {recipient ? (
        <Code block mt="xs">
          select body from outbox where recipient = &apos;{recipient}&apos; order by created_at desc limit 1;
        </Code>
      ) : null}
    </Alert>
  );
}
