import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  ApiError,
  Button,
  consoleApi,
  ErrorNotice,
  Link,
  Loader,
  PasswordInput,
  queryKeys,
  Stack,
  Text,
  TextInput,
  useNavigate,
  useParams,
  useSessionState,
  useValidatedSubmit,
  type InviteLookup,
  type Session,
} from '@engram/console-kit';
import { IconMailOpened } from '@tabler/icons-react';
import { bindFields } from '../layout/form-fields.js';
import { AuthForm, AuthFrame, LinkWithPrompt } from './auth-frame.js';

function SignUpWithInviteForm({ inviteCode, invite }: { inviteCode: string; invite: InviteLookup }) {
  const [values, setValues] = useState({ name: '', password: '' });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const body = { ...values, email: invite.email, inviteCode };
  const join = useMutation({
    mutationFn: () => consoleApi.signUpWithInvite(body),
    onSuccess: async () => {
      // The new account acts in the inviting organization.
      await queryClient.invalidateQueries({ queryKey: queryKeys.self });
      void navigate('/projects', { replace: true });
    },
  });
  const { errors, onSubmit } = useValidatedSubmit('signUpWithInvite', body, () => join.mutate());
  const field = bindFields(values, setValues, errors);
  const emailTaken = join.error instanceof ApiError && join.error.errorCode === 'emailAlreadyTaken';
  return (
    <AuthForm onSubmit={onSubmit} mutation={join} failureTitle="Could not join" submitLabel="Create account and join" submitSize="md">
      {emailTaken ? (
        <Text size="sm">
          You already have an account.{' '}
          <Anchor component={Link} to="/login">
            Log in
          </Anchor>{' '}
          and ask an admin of {invite.organizationName} to invite you again: an existing account joins at once.
        </Text>
      ) : null}
      <TextInput label="Email" value={invite.email} readOnly description="The invitation is for this address." error={errors.email ?? errors.inviteCode} />
      <TextInput label="Name" autoComplete="name" placeholder="Ada Lovelace" {...field('name')} data-autofocus />
      <PasswordInput label="Password" description="At least 8 characters" autoComplete="new-password" {...field('password')} />
    </AuthForm>
  );
}

/**
 * Invites are for people without an account (inviting an existing account adds it at once), so a
 * signed-in visitor is either someone else on this browser or the invitee who signed up meanwhile.
 */
function SignedInNotice({ session, invite }: { session: Session; invite: InviteLookup }) {
  const [loggingOut, setLoggingOut] = useState(false);
  const email = session.user.email ?? '';
  if (email.toLowerCase() === invite.email.toLowerCase()) {
    return (
      <Stack>
        <Text size="sm">
          This invitation is for <b>{invite.email}</b>, which already has an account: yours. Ask an admin of {invite.organizationName} to
          invite you again; an existing account joins at once, and the organization then shows in your organization menu.
        </Text>
        <Button component={Link} to="/projects" variant="light">
          Go to the console
        </Button>
      </Stack>
    );
  }
  return (
    <Stack>
      <Text size="sm">
        You are signed in as <b>{email}</b>, but this invitation is for <b>{invite.email}</b>. Log out to create that account and join{' '}
        {invite.organizationName}.
      </Text>
      <Button
        loading={loggingOut}
        onClick={() => {
          setLoggingOut(true);
          void session.logout().finally(() => setLoggingOut(false));
        }}
      >
        Log out and continue
      </Button>
      <Anchor component={Link} to="/projects" size="sm" ta="center">
        Stay signed in as {email}
      </Anchor>
    </Stack>
  );
}

/** `/invites/:inviteCode`: what the invite is for, and joining with it. */
export function InvitePage() {
  const { inviteCode = '' } = useParams();
  const state = useSessionState();
  const invite = useQuery({ queryKey: queryKeys.invite(inviteCode), queryFn: () => consoleApi.lookupInvite(inviteCode), retry: false });
  const notFound = invite.error instanceof ApiError && invite.error.status === 404;

  return (
    <AuthFrame
      title={invite.data ? `Join ${invite.data.organizationName}` : 'Your invitation'}
      subtitle={
        invite.data ? (
          <>You are invited to work with the team on Engram as {invite.data.email}.</>
        ) : (
          <LinkWithPrompt prompt="Already a member?" to="/login">
            Log in
          </LinkWithPrompt>
        )
      }
    >
      {invite.isPending || state.status === 'loading' ? (
        <Loader mx="auto" display="block" />
      ) : notFound ? (
        <Alert color="yellow" variant="light" icon={<IconMailOpened size={18} />} title="This invitation is no longer valid" data-testid="invite-invalid">
          It expired, was revoked, or was replaced by a newer one. Ask the person who invited you for a new link.
        </Alert>
      ) : invite.error ? (
        <ErrorNotice error={invite.error} title="The invitation could not be loaded" onRetry={() => void invite.refetch()} />
      ) : state.status === 'signed-in' ? (
        <SignedInNotice session={state.session} invite={invite.data} />
      ) : (
        <SignUpWithInviteForm inviteCode={inviteCode} invite={invite.data} />
      )}
    </AuthFrame>
  );
}
