import { useState } from 'react';
import { Alert, Avatar, Button, Group, NativeSelect, Paper, Stack, Text, Title, sendJson, useSessionState } from '@engram/console-kit';
import { IconShieldCheck } from '@tabler/icons-react';

/** What an app asks for, as `/api/oauth/interactions/:id` and `/api/oauth/device/verify-code` describe it. */
export type AuthorizationRequest = {
  app: { name: string; description: string; logoUrl: string | null; clientId: string };
  scopes: string[];
  organizations: Array<{ id: string; name: string }>;
};

export type AuthorizationAnswer = { approve: true; organizationId: string } | { approve: false };

export const oauthApi = {
  authorizationRequest: (interactionId: string) => sendJson<AuthorizationRequest>(`/api/oauth/interactions/${encodeURIComponent(interactionId)}`),
  answerAuthorization: (interactionId: string, answer: AuthorizationAnswer) =>
    sendJson<{ redirectTo: string }>(`/api/oauth/interactions/${encodeURIComponent(interactionId)}`, { method: 'POST', json: answer }),
  deviceRequest: (userCode: string) => sendJson<AuthorizationRequest>('/api/oauth/device/verify-code', { method: 'POST', json: { userCode } }),
  answerDevice: (userCode: string, answer: AuthorizationAnswer) => sendJson<{ success: boolean }>('/api/oauth/device/verify', { method: 'POST', json: { userCode, ...answer } }),
};

/** The agent access scopes (spec 000 §6), in words a user decides on. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  read_agent: 'See your agents: their settings, memory and tools',
  write_agent: 'Create, change and delete your agents',
  read_messages: 'Read the conversations with your agents',
  write_messages: 'Send messages to your agents',
};

/**
 * The consent card: the app (logo, name, description), what it asks to do, and the organization it
 * will act in. The same card serves the browser consent screen and the device verification page.
 */
export function AuthorizationRequestCard({
  request,
  busy,
  onAnswer,
}: {
  request: AuthorizationRequest;
  busy: boolean;
  onAnswer: (answer: AuthorizationAnswer) => void;
}) {
  const state = useSessionState();
  const active = state.status === 'signed-in' ? state.session.organization?.id : undefined;
  const [organizationId, setOrganizationId] = useState(
    request.organizations.find((organization) => organization.id === active)?.id ?? request.organizations[0]?.id ?? '',
  );
  const { app } = request;
  return (
    <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="lg" maw={480} w="100%" data-testid="oauth-consent">
      <Stack gap="lg">
        <Group gap="md" wrap="nowrap">
          <Avatar src={app.logoUrl} alt={`${app.name} logo`} size={56} radius="md" color="engram">
            {app.name.slice(0, 2).toUpperCase()}
          </Avatar>
          <Stack gap={2}>
            <Title order={3}>{app.name}</Title>
            <Text size="sm" c="dimmed">
              wants to access your Engram account
            </Text>
          </Stack>
        </Group>
        {app.description ? <Text size="sm">{app.description}</Text> : null}
        <Stack gap="xs">
          <Text fw={600} size="sm">
            It will be able to
          </Text>
          {request.scopes.length === 0 ? (
            <Text size="sm" c="dimmed">
              Nothing beyond knowing who you are.
            </Text>
          ) : (
            request.scopes.map((scope) => (
              <Group key={scope} gap="xs" wrap="nowrap" data-testid={`oauth-scope-${scope}`}>
                <IconShieldCheck size={18} color="var(--mantine-color-engram-6)" />
                <Text size="sm">{SCOPE_DESCRIPTIONS[scope] ?? scope}</Text>
              </Group>
            ))
          )}
        </Stack>
        {request.organizations.length === 0 ? (
          <Alert color="yellow">You need to belong to an organization before an app can act for you.</Alert>
        ) : (
          <NativeSelect
            label="Organization"
            description="The app acts only in this organization, and never beyond what your role there allows."
            data={request.organizations.map((organization) => ({ value: organization.id, label: organization.name }))}
            value={organizationId}
            onChange={(event) => setOrganizationId(event.currentTarget.value)}
          />
        )}
        <Group justify="flex-end">
          <Button variant="default" disabled={busy} onClick={() => onAnswer({ approve: false })}>
            Deny
          </Button>
          <Button loading={busy} disabled={!organizationId} onClick={() => onAnswer({ approve: true, organizationId })}>
            Allow
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          You can revoke this access at any time. Client id: {app.clientId}
        </Text>
      </Stack>
    </Paper>
  );
}
