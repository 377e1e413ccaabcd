import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Avatar,
  consoleApi,
  Group,
  Menu,
  Modal,
  queryKeys,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
  useNavigate,
  useSession,
  useValidatedSubmit,
} from '@engram/console-kit';
import { IconBuilding, IconCheck, IconPlus, IconSelector, IconSettings } from '@tabler/icons-react';
import { ModalForm } from './dialogs.js';

function CreateOrganizationModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () => consoleApi.createOrganization({ name: name.trim() }),
    onSuccess: async () => {
      // The API makes the new organization the active one.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'console' || query.queryKey[1] !== 'self' });
      await queryClient.invalidateQueries({ queryKey: queryKeys.self });
      setName('');
      onClose();
      void navigate('/projects');
    },
  });
  const { errors, onSubmit } = useValidatedSubmit('organization', { name }, () => create.mutate());
  return (
    <Modal opened={opened} onClose={onClose} title="Create an organization" centered>
      <ModalForm onSubmit={onSubmit} mutation={create} failureTitle="The organization was not created" submitLabel="Create organization" onCancel={onClose}>
        <TextInput label="Name" placeholder="Acme Research" value={name} onChange={(event) => setName(event.currentTarget.value)} error={errors.name} data-autofocus />
      </ModalForm>
    </Modal>
  );
}

/** The organization the user acts in, and the others they can switch to. */
export function OrganizationSwitcher() {
  const session = useSession();
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  const current = session.organization;
  return (
    <>
      <Menu width="target" position="bottom-start" withinPortal>
        <Menu.Target>
          <UnstyledButton
            w="100%"
            p="xs"
            aria-label="Switch organization"
            style={{ borderRadius: 'var(--mantine-radius-md)', border: '1px solid var(--mantine-color-default-border)' }}
          >
            <Group gap="sm" wrap="nowrap">
              <Avatar radius="md" size={32} color="engram">
                <IconBuilding size={18} />
              </Avatar>
              <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
                <Text size="xs" c="dimmed">
                  Organization
                </Text>
                <Text size="sm" fw={600} truncate data-testid="current-organization">
                  {current?.name ?? 'No organization'}
                </Text>
              </Stack>
              <IconSelector size={16} />
            </Group>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>Your organizations</Menu.Label>
          {session.organizations.map((organization) => (
            <Menu.Item
              key={organization.id}
              rightSection={organization.id === current?.id ? <IconCheck size={14} /> : null}
              onClick={() => {
                if (organization.id === current?.id) return;
                void session.switchOrganization(organization.id).then(() => navigate('/projects'));
              }}
            >
              {organization.name}
            </Menu.Item>
          ))}
          <Menu.Divider />
          {current ? (
            <Menu.Item leftSection={<IconSettings size={14} />} onClick={() => void navigate('/settings/organization')}>
              Organization settings
            </Menu.Item>
          ) : null}
          <Menu.Item leftSection={<IconPlus size={14} />} onClick={() => setCreating(true)}>
            New organization
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <CreateOrganizationModal opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}
