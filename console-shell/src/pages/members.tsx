import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Avatar,
  Badge,
  Button,
  consoleApi,
  CopyButton,
  CopyField,
  ErrorNotice,
  Group,
  Menu,
  Modal,
  NativeSelect,
  PageHeader,
  PERMISSION_GROUPS,
  queryKeys,
  ROLE_DESCRIPTIONS,
  ROLES,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
  useFormatters,
  useMemberAccess,
  useSession,
  useValidatedSubmit,
  type InvitedMember,
  type InviteOutcome,
  type Member,
  type Role,
} from '@engram/console-kit';
import { Checkbox } from '@engram/console-kit/widgets';
import { IconCheck, IconDots, IconLink, IconMailPlus, IconRefresh, IconTrash, IconUserCheck, IconUserPlus } from '@tabler/icons-react';
import { Permitted } from '../layout/access.js';
import { ConfirmDialog, ModalForm, useDialogMutation } from '../layout/dialogs.js';
import { bindFields } from '../layout/form-fields.js';
import { PagedTable } from './page-scaffold.js';

const PAGE_SIZE = 20;

const ROLE_LABELS: Record<Role, string> = { admin: 'Admin', editor: 'Editor', analyst: 'Analyst', custom: 'Custom' };

const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }));

const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** A cell that takes the row's spare width and no more, so long names and emails truncate instead of pushing the actions off a phone's screen. */
const SHRINKING_CELL = { width: '100%', maxWidth: 0 };

/** Wide enough for the longest role's badge. */
const ROLE_COLUMN_WIDTH = 110;

/** In a table cell a badge's clipped label measures as one letter; unclipped, it keeps its text (as in the agents remote's runs table). */
const BADGE_IN_TABLE = { label: { overflow: 'visible' } } as const;

/** The page an invitee opens: `/invites/<code>` on this console's own origin. */
const inviteLink = (invite: InvitedMember) => `${window.location.origin}/invites/${encodeURIComponent(invite.inviteCode)}`;

function RoleSelect({ value, onChange, error }: { value: Role; onChange: (role: Role) => void; error?: string | undefined }) {
  return (
    <NativeSelect
      label="Role"
      description={ROLE_DESCRIPTIONS[value]}
      data={ROLE_OPTIONS}
      value={value}
      onChange={(event) => {
        const role = event.currentTarget.value;
        if (isRole(role)) onChange(role);
      }}
      error={error}
    />
  );
}

function InviteModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [values, setValues] = useState<{ email: string; role: Role }>({ email: '', role: 'analyst' });
  const [outcome, setOutcome] = useState<InviteOutcome | null>(null);
  const queryClient = useQueryClient();
  const format = useFormatters();
  const invite = useMutation({
    mutationFn: () => consoleApi.inviteMember({ email: values.email.trim(), role: values.role }),
    onSuccess: async (result) => {
      setOutcome(result);
      await queryClient.invalidateQueries({ queryKey: result.kind === 'invited' ? queryKeys.invitedMembers : queryKeys.members });
    },
  });
  const { errors, onSubmit } = useValidatedSubmit('invite', { ...values, email: values.email.trim() }, () => invite.mutate());
  const field = bindFields(values, setValues, errors);
  const close = () => {
    setValues({ email: '', role: 'analyst' });
    setOutcome(null);
    invite.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={outcome ? 'Invitation ready' : 'Invite a member'} centered size="lg">
      {outcome?.kind === 'invited' ? (
        <Stack data-testid="created-invite">
          <Text size="sm" data-testid="invite-delivery">
            {outcome.emailDelivery === 'smtp' ? (
              <>
                An invitation is on its way to <b>{outcome.invite.email}</b>. You can also send them this link
              </>
            ) : (
              // No mail server is configured: the invitation waits in the server's outbox, unsent.
              <>
                No email was sent (this server has no mail server set up). Send <b>{outcome.invite.email}</b> this link
              </>
            )}
            ; it works until {format.dateTime(outcome.invite.expiresAt)}.
          </Text>
          <CopyField label="Invite link" value={inviteLink(outcome.invite)} />
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : outcome?.kind === 'added' ? (
        <Stack>
          <Alert color="teal" variant="light" icon={<IconUserCheck size={18} />} title="Added to the organization">
            {outcome.user.name} ({outcome.user.email}) already had an account and is now a member.
          </Alert>
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <ModalForm
          onSubmit={onSubmit}
          mutation={invite}
          failureTitle="The invitation was not sent"
          submitLabel="Send invitation"
          submitIcon={<IconMailPlus size={16} />}
          onCancel={close}
        >
          <TextInput label="Email" type="email" placeholder="colleague@example.com" {...field('email')} data-autofocus />
          <RoleSelect value={values.role} onChange={(role) => setValues({ ...values, role })} error={errors.role} />
        </ModalForm>
      )}
    </Modal>
  );
}

function PermissionPicker({ value, onChange }: { value: string[]; onChange: (permissions: string[]) => void }) {
  return (
    <Checkbox.Group label="Permissions" description="A custom member can do exactly these." value={value} onChange={onChange}>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md" verticalSpacing="md" mt="xs">
        {PERMISSION_GROUPS.map((group) => (
          <Stack key={group.label} gap={6}>
            <Text size="xs" fw={700} c="dimmed" tt="uppercase">
              {group.label}
            </Text>
            {group.permissions.map((permission) => (
              <Checkbox key={permission.value} value={permission.value} label={permission.label} size="xs" aria-label={`${group.label}: ${permission.label}`} />
            ))}
          </Stack>
        ))}
      </SimpleGrid>
    </Checkbox.Group>
  );
}

function ChangeRoleModal({ member, onClose }: { member: Member; onClose: () => void }) {
  const [values, setValues] = useState<{ role: Role; customPermissions: string[] }>({
    role: isRole(member.role) ? member.role : 'analyst',
    customPermissions: member.customPermissions,
  });
  const change = useDialogMutation(
    () => consoleApi.changeMemberRole(member.id, values.role === 'custom' ? values : { role: values.role }),
    queryKeys.members,
    onClose,
  );
  const { errors, onSubmit } = useValidatedSubmit('memberRole', values, () => change.mutate());
  return (
    <Modal opened onClose={onClose} title={`Change the role of ${member.name}`} centered size={values.role === 'custom' ? 'xl' : 'md'}>
      <ModalForm onSubmit={onSubmit} mutation={change} failureTitle="The role was not changed" submitLabel="Save role" onCancel={onClose}>
        <RoleSelect value={values.role} onChange={(role) => setValues({ ...values, role })} error={errors.role} />
        {values.role === 'custom' ? (
          <PermissionPicker value={values.customPermissions} onChange={(customPermissions) => setValues({ ...values, customPermissions })} />
        ) : null}
      </ModalForm>
    </Modal>
  );
}

function RemoveMemberModal({ member, onClose }: { member: Member; onClose: () => void }) {
  const remove = useDialogMutation(() => consoleApi.removeMember(member.id), queryKeys.members, onClose);
  return (
    <ConfirmDialog
      title="Remove member"
      mutation={remove}
      failureTitle="The member was not removed"
      confirmLabel="Remove member"
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      Remove <b>{member.name}</b> from this organization? They lose access at once; their account stays.
    </ConfirmDialog>
  );
}

function RevokeInviteModal({ invite, onClose }: { invite: InvitedMember; onClose: () => void }) {
  const revoke = useDialogMutation(() => consoleApi.revokeInvite(invite.id), queryKeys.invitedMembers, onClose);
  return (
    <ConfirmDialog
      title="Revoke invitation"
      mutation={revoke}
      failureTitle="The invitation was not revoked"
      confirmLabel="Revoke invitation"
      onConfirm={() => revoke.mutate()}
      onClose={onClose}
    >
      Revoke the invitation for <b>{invite.email}</b>? Its link stops working at once.
    </ConfirmDialog>
  );
}

function MemberRow({ member, isYou, canManage, onChangeRole, onRemove }: {
  member: Member;
  isYou: boolean;
  canManage: boolean;
  onChangeRole: () => void;
  onRemove: () => void;
}) {
  const format = useFormatters();
  return (
    <Table.Tr data-testid="member-row">
      <Table.Td style={SHRINKING_CELL}>
        <Group gap="sm" wrap="nowrap">
          <Avatar radius="xl" size={30} color="engram">
            {member.name.slice(0, 1).toUpperCase()}
          </Avatar>
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Text size="sm" fw={500} truncate>
              {member.name}
              {isYou ? (
                <Text span c="dimmed" size="sm">
                  {' '}
                  (you)
                </Text>
              ) : null}
            </Text>
            <Text size="xs" c="dimmed" truncate>
              {member.email}
            </Text>
          </Stack>
        </Group>
      </Table.Td>
      <Table.Td>
        <Badge variant="light" styles={BADGE_IN_TABLE} data-testid="member-role">
          {member.role}
        </Badge>
      </Table.Td>
      <Table.Td visibleFrom="sm">
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {format.dateTime(member.createdAt)}
        </Text>
      </Table.Td>
      {canManage ? (
        <Table.Td>
          {isYou ? null : (
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" color="gray" aria-label={`Manage ${member.name}`}>
                  <IconDots size={16} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={onChangeRole}>Change role</Menu.Item>
                <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={onRemove}>
                  Remove from organization
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          )}
        </Table.Td>
      ) : null}
    </Table.Tr>
  );
}

function InviteRow({ invite, onRevoke }: { invite: InvitedMember; onRevoke: () => void }) {
  const format = useFormatters();
  const queryClient = useQueryClient();
  const regenerate = useMutation({
    mutationFn: () => consoleApi.regenerateInvite(invite.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.invitedMembers }),
  });
  return (
    <Table.Tr data-testid="invite-row">
      <Table.Td style={SHRINKING_CELL}>
        <Text size="sm" fw={500} truncate>
          {invite.email}
        </Text>
        {regenerate.error ? (
          <Text size="xs" c="red">
            {regenerate.error.message}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>
        <Badge variant="outline" styles={BADGE_IN_TABLE}>
          {invite.role}
        </Badge>
      </Table.Td>
      <Table.Td visibleFrom="sm">
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {format.relative(invite.expiresAt)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap" justify="flex-end">
          <CopyButton value={inviteLink(invite)} timeout={2000}>
            {({ copied, copy }) => (
              <Tooltip label={copied ? 'Copied' : 'Copy invite link'}>
                <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} aria-label={`Copy invite link for ${invite.email}`} onClick={copy}>
                  {copied ? <IconCheck size={16} /> : <IconLink size={16} />}
                </ActionIcon>
              </Tooltip>
            )}
          </CopyButton>
          <Tooltip label="New code (the old link stops working)">
            <ActionIcon variant="subtle" color="gray" aria-label={`New invite code for ${invite.email}`} loading={regenerate.isPending} onClick={() => regenerate.mutate()}>
              <IconRefresh size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Revoke invitation">
            <ActionIcon variant="subtle" color="red" aria-label={`Revoke invitation for ${invite.email}`} onClick={onRevoke}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

function InvitesCard({ invites, offset, onPage, onRevoke }: {
  invites: { members: InvitedMember[]; hasNextPage: boolean };
  offset: number;
  onPage: (offset: number) => void;
  onRevoke: (invite: InvitedMember) => void;
}) {
  return (
    <>
      <Title order={3} fz="h4" mt="xl" mb="sm">
        Pending invitations
      </Title>
      <PagedTable
        testId="invites-table"
        empty={
          invites.members.length === 0 ? (
            <Text size="sm" c="dimmed" p="lg">
              No pending invitations. Invite someone by email; they join when they sign up with the link.
            </Text>
          ) : null
        }
        head={
          <>
            <Table.Th>Email</Table.Th>
            <Table.Th w={ROLE_COLUMN_WIDTH}>Role</Table.Th>
            <Table.Th visibleFrom="sm" w={140}>
              Expires
            </Table.Th>
            <Table.Th w={120} />
          </>
        }
        page={{ offset, limit: PAGE_SIZE, hasNextPage: invites.hasNextPage, onChange: onPage }}
      >
        {invites.members.map((invite) => (
          <InviteRow key={invite.id} invite={invite} onRevoke={() => onRevoke(invite)} />
        ))}
      </PagedTable>
    </>
  );
}

export function MembersPage() {
  const { user } = useSession();
  const [offset, setOffset] = useState(0);
  const [inviteOffset, setInviteOffset] = useState(0);
  const [inviting, setInviting] = useState(false);
  const [changingRole, setChangingRole] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [revoking, setRevoking] = useState<InvitedMember | null>(null);
  const members = useQuery({
    queryKey: [...queryKeys.members, offset],
    queryFn: () => consoleApi.members({ offset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const access = useMemberAccess();
  // Seeing invitations takes the same permission as inviting and managing members.
  const canManage = access.can('update_users_in_organization');
  const invites = useQuery({
    queryKey: [...queryKeys.invitedMembers, inviteOffset],
    queryFn: () => consoleApi.invitedMembers({ offset: inviteOffset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
    enabled: canManage,
  });

  return (
    <>
      <PageHeader
        title="Members"
        description={
          access.known && !canManage
            ? 'People in this organization and their roles. Ask an admin to invite someone.'
            : 'People in this organization, their roles, and who is invited.'
        }
        actions={
          <Permitted permission="update_users_in_organization" action="invite or manage members">
            <Button leftSection={<IconUserPlus size={16} />} onClick={() => setInviting(true)}>
              Invite member
            </Button>
          </Permitted>
        }
      />
      {members.error ? <ErrorNotice error={members.error} onRetry={() => void members.refetch()} /> : null}
      <PagedTable
        testId="members-table"
        loading={members.isPending}
        head={
          <>
            <Table.Th>Member</Table.Th>
            <Table.Th w={ROLE_COLUMN_WIDTH}>Role</Table.Th>
            <Table.Th visibleFrom="sm" w={200}>
              Joined
            </Table.Th>
            {canManage ? <Table.Th w={60} /> : null}
          </>
        }
        page={{ offset, limit: PAGE_SIZE, hasNextPage: members.data?.hasNextPage ?? false, onChange: setOffset }}
      >
        {members.data?.members.map((member) => (
          <MemberRow
            key={member.id}
            member={member}
            isYou={member.id === user.id}
            canManage={canManage}
            onChangeRole={() => setChangingRole(member)}
            onRemove={() => setRemoving(member)}
          />
        ))}
      </PagedTable>

      {invites.data ? <InvitesCard invites={invites.data} offset={inviteOffset} onPage={setInviteOffset} onRevoke={setRevoking} /> : null}
      {invites.error ? <ErrorNotice error={invites.error} title="Invitations could not be loaded" onRetry={() => void invites.refetch()} /> : null}

      <InviteModal opened={inviting} onClose={() => setInviting(false)} />
      {changingRole ? <ChangeRoleModal key={changingRole.id} member={changingRole} onClose={() => setChangingRole(null)} /> : null}
      {removing ? <RemoveMemberModal member={removing} onClose={() => setRemoving(null)} /> : null}
      {revoking ? <RevokeInviteModal invite={revoking} onClose={() => setRevoking(null)} /> : null}
    </>
  );
}
