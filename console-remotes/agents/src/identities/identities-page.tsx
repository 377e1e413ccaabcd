import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionIcon, Badge, Button, Card, Code, ErrorNotice, Group, PageHeader, Skeleton, Stack, Table, Text, Tooltip, useProject, useV1 } from '@engram/console-kit';
import { IconEye, IconId, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { agentKeys } from '../queries.js';
import { CursorPager, useCursorPages } from '../workspace/cursor-pager.js';
import { deleteIdentity, listIdentities, type Identity } from './identities-api.js';
import { identityKeys } from './identity-keys.js';
import { IdentityModal } from './identity-modal.js';

const PAGE = 25;

const TYPE_LABELS: Record<Identity['identity_type'], string> = { user: 'User', org: 'Organization', other: 'Other' };

function IdentityRow({ identity, onOpen }: { identity: Identity; onOpen: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteIdentity(identity.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: identityKeys.all(v1) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) });
      setConfirming(false);
    },
  });
  const editable = can('updateIdentity');
  return (
    <Table.Tr data-testid={`identity-${identity.identifier_key}`}>
      <Table.Td>
        <Text size="sm" fw={600}>
          {identity.name}
        </Text>
      </Table.Td>
      <Table.Td>
        <Code>{identity.identifier_key}</Code>
      </Table.Td>
      <Table.Td>
        <Badge size="sm" variant="light" tt="none">
          {TYPE_LABELS[identity.identity_type]}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm" data-testid="identity-agent-count">
          {identity.agent_ids.length}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4}>
          {identity.properties.slice(0, 4).map((property) => (
            <Badge key={property.key} size="xs" variant="outline" tt="none">
              {property.key}
            </Badge>
          ))}
          {identity.properties.length > 4 ? (
            <Text size="xs" c="dimmed">
              +{identity.properties.length - 4}
            </Text>
          ) : null}
        </Group>
      </Table.Td>
      <Table.Td>
        <Group gap={4} justify="flex-end" wrap="nowrap">
          <Tooltip label={editable ? 'Edit' : 'View'}>
            <ActionIcon variant="subtle" onClick={onOpen} aria-label={`${editable ? 'Edit' : 'View'} ${identity.name}`}>
              {editable ? <IconPencil size={16} /> : <IconEye size={16} />}
            </ActionIcon>
          </Tooltip>
          {can('deleteIdentity') ? (
            <Tooltip label="Delete">
              <ActionIcon variant="subtle" color="red" onClick={() => setConfirming(true)} aria-label={`Delete ${identity.name}`}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
        {confirming ? (
          <ConfirmDialog title={`Delete ${identity.name}?`} confirmLabel="Delete identity" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setConfirming(false)}>
            Its agents and memory blocks stay; they just no longer act for {identity.identifier_key}.
          </ConfirmDialog>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

/** The project's identities: the users and organizations of yours that agents act for, with their properties. */
export function IdentitiesPage() {
  const v1 = useV1();
  const project = useProject();
  const { can } = usePermissions();
  const pages = useCursorPages();
  // `null`: a new identity; undefined: no dialog.
  const [open, setOpen] = useState<Identity | null | undefined>(undefined);
  const identities = useQuery({
    queryKey: identityKeys.page(v1, project.id, pages.after),
    queryFn: () => listIdentities(project.id, { after: pages.after, limit: PAGE }),
    placeholderData: keepPreviousData,
  });
  const shown = identities.data ?? [];
  const last = shown.at(-1);
  return (
    <>
      <PageHeader
        title="Identities"
        description={`The users and organizations agents in ${project.name} act for: one identity per key your system knows them by, with properties.`}
        actions={
          can('createIdentity') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setOpen(null)}>
              New identity
            </Button>
          ) : null
        }
      />
      {identities.error ? <ErrorNotice error={identities.error} onRetry={() => void identities.refetch()} /> : null}
      {identities.isPending ? (
        <Skeleton h={96} radius="lg" />
      ) : shown.length === 0 && pages.index === 0 ? (
        <Card withBorder radius="lg" p="xl">
          <Stack align="center" gap="xs">
            <IconId size={32} stroke={1.4} />
            <Text fw={600}>No identities yet</Text>
            <Text size="sm" c="dimmed" ta="center" maw={460}>
              Give each end user (or customer organization) an identity and attach their agents to it, so your code finds them by your own key.
            </Text>
          </Stack>
        </Card>
      ) : (
        <Card withBorder radius="lg" p={0}>
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" horizontalSpacing="md" data-testid="identities-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Identifier key</Table.Th>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Agents</Table.Th>
                  <Table.Th>Properties</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((identity) => (
                  <IdentityRow key={identity.id} identity={identity} onOpen={() => setOpen(identity)} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <CursorPager pages={pages} pageSize={PAGE} shown={shown.length} nextCursor={shown.length === PAGE && last ? last.id : null} settled={!identities.isPlaceholderData} />
      {open !== undefined ? <IdentityModal key={open?.id ?? 'new'} identity={open} onClose={() => setOpen(undefined)} /> : null}
    </>
  );
}
