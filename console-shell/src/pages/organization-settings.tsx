import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  CONSOLE_API,
  ErrorNotice,
  Group,
  Modal,
  PageHeader,
  queryKeys,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
  useNavigate,
  useSession,
  useValidatedSubmit,
  sendJson,
} from '@engram/console-kit';
import { IconDoorExit, IconPencil, IconTrash } from '@tabler/icons-react';
import { Permitted } from '../layout/access.js';

/*
 * The organization's own settings (spec 000 §7 "Organizations"): its name, leaving it, and deleting it. Their calls
 * are this screen's alone, so they live beside it.
 */

type OrganizationSettings = { id: string; name: string; isOwner: boolean };
type DeletionImpact = { members: number; apiKeys: number; agents: number; projects: number; templates: number };

const organizationApi = {
  get: () => sendJson<OrganizationSettings>(`${CONSOLE_API}/organizations/self`),
  rename: (name: string) => sendJson<OrganizationSettings>(`${CONSOLE_API}/organizations/self`, { method: 'PATCH', json: { name } }),
  deletionImpact: () => sendJson<DeletionImpact>(`${CONSOLE_API}/organizations/self/deletion-impact`),
  delete: () => sendJson<{ success: boolean }>(`${CONSOLE_API}/organizations/self`, { method: 'DELETE' }),
  leave: () => sendJson<{ activeOrganizationId: string | null }>(`${CONSOLE_API}/organizations/self/leave`, { method: 'POST' }),
};

const settingsKey = (organizationId: string) => ['console', 'organization-settings', organizationId] as const;

/** "3 agents", "1 API key": how many of a thing, in words. */
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** After leaving or deleting, the user acts in another organization (or none): everything cached was the old one's. */
function useLeaveOrganization() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return async () => {
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'console' || query.queryKey[1] !== 'self' });
    await queryClient.invalidateQueries({ queryKey: queryKeys.self });
    await queryClient.invalidateQueries({ queryKey: queryKeys.organizations });
    void navigate('/projects');
  };
}

function RenameCard({ organization }: { organization: OrganizationSettings }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(organization.name);
  const rename = useMutation({
    mutationFn: () => organizationApi.rename(name.trim()),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: settingsKey(organization.id) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.organizations });
    },
  });
  const { errors, onSubmit } = useValidatedSubmit('organization', { name }, () => rename.mutate());
  return (
    <Card withBorder radius="md" p="lg" data-testid="rename-organization">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          <Title order={4}>Name</Title>
          {rename.error ? <ErrorNotice error={rename.error} title="The organization was not renamed" /> : null}
          <TextInput label="Organization name" value={name} maxLength={100} onChange={(event) => setName(event.currentTarget.value)} error={errors.name} maw={420} />
          <Group>
            <Permitted permission="update_organization" action="rename the organization">
              <Button type="submit" leftSection={<IconPencil size={16} />} loading={rename.isPending} disabled={name.trim() === organization.name}>
                Rename
              </Button>
            </Permitted>
            {rename.isSuccess && name.trim() === organization.name ? (
              <Text size="sm" c="teal" data-testid="renamed">
                Renamed.
              </Text>
            ) : null}
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function LeaveCard({ organization }: { organization: OrganizationSettings }) {
  const [confirming, setConfirming] = useState(false);
  const afterwards = useLeaveOrganization();
  const leave = useMutation({ mutationFn: organizationApi.leave, onSuccess: afterwards });
  return (
    <Card withBorder radius="md" p="lg" data-testid="leave-organization">
      <Stack gap="sm">
        <Title order={4}>Leave</Title>
        <Text size="sm" c="dimmed">
          You lose access to {organization.name}: its projects, agents and billing. Your API keys of it stop working. An organization keeps at least one admin,
          so its last admin cannot leave.
        </Text>
        <Group>
          <Button variant="default" color="red" leftSection={<IconDoorExit size={16} />} onClick={() => setConfirming(true)}>
            Leave organization
          </Button>
        </Group>
      </Stack>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={`Leave ${organization.name}?`} centered>
        <Stack>
          {leave.error ? <ErrorNotice error={leave.error} title="You did not leave the organization" /> : null}
          <Text size="sm">An admin can invite you again later.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" loading={leave.isPending} onClick={() => leave.mutate()}>
              Leave
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}

/** What deleting takes with it, said before the name is typed to confirm. */
function DeleteModal({ organization, onClose }: { organization: OrganizationSettings; onClose: () => void }) {
  const impact = useQuery({ queryKey: [...settingsKey(organization.id), 'deletion-impact'], queryFn: organizationApi.deletionImpact });
  const [typed, setTyped] = useState('');
  const afterwards = useLeaveOrganization();
  const remove = useMutation({ mutationFn: organizationApi.delete, onSuccess: afterwards });
  return (
    <Modal opened onClose={onClose} title={`Delete ${organization.name}?`} centered>
      <Stack>
        {remove.error ? <ErrorNotice error={remove.error} title="The organization was not deleted" /> : null}
        {impact.error ? <ErrorNotice error={impact.error} title="What the organization holds could not be read" onRetry={() => void impact.refetch()} /> : null}
        {impact.isPending ? <Skeleton h={60} /> : null}
        {impact.data ? (
          <Alert color="red" title="This cannot be undone" data-testid="deletion-impact">
            Deleting {organization.name} deletes its {count(impact.data.agents, 'agent')}, {count(impact.data.templates, 'template')},{' '}
            {count(impact.data.projects, 'project')} and {count(impact.data.apiKeys, 'API key')}, with their messages, files and usage history, and removes its{' '}
            {count(impact.data.members, 'member')} (their accounts stay).
          </Alert>
        ) : null}
        <TextInput
          label={`Type ${organization.name} to confirm`}
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          aria-label="Organization name to confirm"
          data-autofocus
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" leftSection={<IconTrash size={16} />} loading={remove.isPending} disabled={typed !== organization.name || !impact.data} onClick={() => remove.mutate()}>
            Delete organization
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function DeleteCard({ organization }: { organization: OrganizationSettings }) {
  const [confirming, setConfirming] = useState(false);
  return (
    <Card withBorder radius="md" p="lg" data-testid="delete-organization" style={{ borderColor: 'var(--mantine-color-red-outline)' }}>
      <Stack gap="sm">
        <Title order={4}>Delete</Title>
        <Text size="sm" c="dimmed">
          {organization.isOwner
            ? 'Deletes the organization with everything it holds. Its members keep their accounts.'
            : 'Only its owner (the admin who has been a member longest) can delete the organization.'}
        </Text>
        <Group>
          <Button color="red" leftSection={<IconTrash size={16} />} disabled={!organization.isOwner} onClick={() => setConfirming(true)}>
            Delete organization
          </Button>
        </Group>
      </Stack>
      {confirming ? <DeleteModal organization={organization} onClose={() => setConfirming(false)} /> : null}
    </Card>
  );
}

/** `/settings/organization`: rename, leave, delete. */
export function OrganizationSettingsPage() {
  const session = useSession();
  const organizationId = session.organization?.id ?? '';
  const organization = useQuery({ queryKey: settingsKey(organizationId), queryFn: organizationApi.get, enabled: organizationId !== '' });
  return (
    <>
      <PageHeader title="Organization" description="The organization you act in: its name, and leaving or deleting it." />
      {organization.error ? <ErrorNotice error={organization.error} title="The organization could not be loaded" onRetry={() => void organization.refetch()} /> : null}
      {organization.isPending && organizationId ? <Skeleton h={200} /> : null}
      {!organizationId ? <Text c="dimmed">You are in no organization.</Text> : null}
      {organization.data ? (
        <Stack gap="lg" maw={720}>
          <RenameCard organization={organization.data} />
          <LeaveCard organization={organization.data} />
          <DeleteCard organization={organization.data} />
        </Stack>
      ) : null}
    </>
  );
}
