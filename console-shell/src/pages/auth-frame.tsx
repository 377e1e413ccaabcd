import type { FormEvent, ReactNode } from 'react';
import { Anchor, Box, Button, ErrorNotice, Flex, Link, Paper, Stack, Text, Title, type MantineSize } from '@engram/console-kit';
import { IconBrain, IconDatabase, IconPlayerPlay, IconTools } from '@tabler/icons-react';
import type { MutationProgress } from '../layout/dialogs.js';
import { Logo } from '../layout/logo.js';

function Feature({ icon, title, text }: { icon: ReactNode; title: string; text: string }) {
  return (
    <Flex gap="md" align="flex-start">
      <Box mt={2} c="white" style={{ opacity: 0.9 }}>
        {icon}
      </Box>
      <Stack gap={2}>
        <Text fw={600} c="white">
          {title}
        </Text>
        <Text size="sm" c="white" style={{ opacity: 0.8 }}>
          {text}
        </Text>
      </Stack>
    </Flex>
  );
}

/** Sign-in screens: a brand panel on wide screens, the form alone on phones. */
export function AuthFrame({ title, subtitle, children }: { title: string; subtitle: ReactNode; children: ReactNode }) {
  return (
    <Flex mih="100vh">
      <Box
        visibleFrom="md"
        p={56}
        style={{
          flex: '0 0 44%',
          background: 'linear-gradient(150deg, var(--mantine-color-engram-8) 0%, var(--mantine-color-engram-6) 55%, var(--mantine-color-grape-6) 100%)',
          display: 'flex',
          flexDirection: 'column',
          justifyContent: 'space-between',
        }}
      >
        <Flex align="center" gap="sm" c="white">
          <IconBrain size={30} />
          <Text fw={750} fz={24} c="white">
            Engram
          </Text>
        </Flex>
        <Stack gap="xl" maw={420}>
          <Title order={2} c="white" fz={34} lh={1.2}>
            Agents that remember, and runs that never get lost.
          </Title>
          <Feature icon={<IconDatabase size={22} />} title="Memory you can see" text="Edit memory blocks and watch the agent update them as it works." />
          <Feature icon={<IconPlayerPlay size={22} />} title="Durable runs" text="Every turn is a workflow: reload the page and the stream picks up where it was." />
          <Feature icon={<IconTools size={22} />} title="Tools with a human in the loop" text="Require approval for any tool and decide inline, in the chat." />
        </Stack>
        <Text size="xs" c="white" style={{ opacity: 0.7 }}>
          Self-hosted · open API · wire-compatible clients
        </Text>
      </Box>
      <Flex style={{ flex: 1 }} align="center" justify="center" p={{ base: 'md', sm: 'xl' }}>
        <Stack w="100%" maw={420} gap="lg">
          <Box hiddenFrom="md">
            <Logo size="lg" />
          </Box>
          <Stack gap={4}>
            <Title order={2}>{title}</Title>
            <Text c="dimmed" size="sm">
              {subtitle}
            </Text>
          </Stack>
          <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="lg">
            {children}
          </Paper>
        </Stack>
      </Flex>
    </Flex>
  );
}

/** A subtitle's way out to the other sign-in screen: "New to Engram? Create an account". */
export function LinkWithPrompt({ prompt, to, children }: { prompt: string; to: string; children: ReactNode }) {
  return (
    <>
      {prompt}{' '}
      <Anchor component={Link} to={to}>
        {children}
      </Anchor>
    </>
  );
}

/**
 * The form in an `AuthFrame`: `intro` (what the step before did), the failure of the last submit, the
 * fields, and the full-width submit button.
 */
export function AuthForm({
  onSubmit,
  mutation,
  failureTitle,
  submitLabel,
  submitSize,
  intro,
  children,
}: {
  onSubmit: (event: FormEvent) => void;
  mutation: MutationProgress;
  failureTitle?: string;
  submitLabel: string;
  submitSize?: MantineSize;
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        {intro}
        {mutation.error ? <ErrorNotice error={mutation.error} title={failureTitle} /> : null}
        {children}
        <Button type="submit" loading={mutation.isPending} fullWidth size={submitSize}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
