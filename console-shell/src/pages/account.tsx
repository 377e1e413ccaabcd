import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  consoleApi,
  ErrorNotice,
  Group,
  NativeSelect,
  PageHeader,
  PasswordInput,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  useSession,
  useValidatedSubmit,
  type EmailDelivery,
} from '@engram/console-kit';
import { IconCircleCheck, IconKey } from '@tabler/icons-react';
import { bindFields } from '../layout/form-fields.js';
import { SentCode } from './development-code.js';

const LOCALES = [
  { value: 'en', label: 'English' },
  { value: 'en-GB', label: 'English (UK)' },
  { value: 'de', label: 'Deutsch' },
  { value: 'fr', label: 'Français' },
  { value: 'es', label: 'Español' },
  { value: 'ja', label: '日本語' },
];

/**
 * A new password through the reset code sent to the account's own email: the session alone does not
 * change it. Setting it signs out every session, this one too.
 */
function PasswordCard({ email }: { email: string }) {
  const session = useSession();
  const [sent, setSent] = useState<{ at: number; delivery: EmailDelivery } | null>(null);
  const [values, setValues] = useState({ email, code: '', password: '' });
  const start = useMutation({
    mutationFn: () => consoleApi.startPasswordReset({ email }),
    onSuccess: (started) => setSent({ at: Date.now(), delivery: started.emailDelivery }),
  });
  const finish = useMutation({ mutationFn: () => consoleApi.finishPasswordReset(values) });
  const { errors, onSubmit } = useValidatedSubmit('passwordReset', values, () => finish.mutate());
  const field = bindFields(values, setValues, errors);

  if (finish.isSuccess) {
    return (
      <Alert color="teal" variant="light" icon={<IconCircleCheck size={18} />} title="Password changed" data-testid="password-changed">
        <Stack gap="sm" align="flex-start">
          <Text size="sm">Every session was signed out, this one too. Log in again with the new password.</Text>
          <Button size="xs" variant="light" color="teal" onClick={() => void session.logout()}>
            Log in again
          </Button>
        </Stack>
      </Alert>
    );
  }
  return (
    <Card withBorder radius="lg" p="lg" data-testid="password-card">
      <Stack>
        <Group justify="space-between" wrap="wrap" gap="sm">
          <div>
            <Text fw={600} size="sm">
              Password
            </Text>
            <Text size="sm" c="dimmed">
              A code sent to {email} confirms it is you.
            </Text>
          </div>
          <Button variant={sent ? 'default' : 'filled'} leftSection={<IconKey size={16} />} loading={start.isPending} onClick={() => start.mutate()}>
            {sent ? 'Send a new code' : 'Change password'}
          </Button>
        </Group>
        {start.error ? <ErrorNotice error={start.error} title="No code was sent" /> : null}
        {sent ? (
          <>
            <SentCode sentAt={sent.at} delivery={sent.delivery} purpose="password reset" />
            <form onSubmit={onSubmit} noValidate>
              <Stack>
                {finish.error ? <ErrorNotice error={finish.error} title="The password was not changed" /> : null}
                <TextInput label="Code" inputMode="numeric" autoComplete="one-time-code" maw={220} {...field('code')} />
                <PasswordInput label="New password" description="At least 8 characters" autoComplete="new-password" {...field('password')} />
                <Group>
                  <Button type="submit" loading={finish.isPending}>
                    Set new password
                  </Button>
                </Group>
              </Stack>
            </form>
          </>
        ) : null}
      </Stack>
    </Card>
  );
}

export function AccountPage() {
  const session = useSession();
  const { user } = session;
  const [name, setName] = useState(user.name);
  const update = useMutation({ mutationFn: (changes: { name?: string; theme?: string; locale?: string }) => session.updateUser(changes) });
  return (
    <>
      <PageHeader title="Account" description={user.email ?? undefined} />
      <Stack maw={560}>
        {update.error ? <ErrorNotice error={update.error} title="The change was not saved" /> : null}
        <Card withBorder radius="lg" p="lg">
          <form
            onSubmit={(event) => {
              event.preventDefault();
              update.mutate({ name: name.trim() });
            }}
          >
            <Stack>
              <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} />
              <Group justify="flex-end">
                <Button type="submit" loading={update.isPending} disabled={!name.trim() || name.trim() === user.name}>
                  Save
                </Button>
              </Group>
            </Stack>
          </form>
        </Card>
        <Card withBorder radius="lg" p="lg">
          <Stack>
            <div>
              <Text fw={600} size="sm" mb={6}>
                Theme
              </Text>
              <SegmentedControl
                value={user.theme === 'light' || user.theme === 'dark' ? user.theme : 'auto'}
                onChange={(theme) => update.mutate({ theme })}
                data={[
                  { value: 'light', label: 'Light' },
                  { value: 'dark', label: 'Dark' },
                  { value: 'auto', label: 'System' },
                ]}
              />
            </div>
            <NativeSelect
              label="Language and formats"
              description="Dates and numbers follow this locale."
              data={LOCALES}
              value={LOCALES.some((locale) => locale.value === user.locale) ? user.locale : 'en'}
              onChange={(event) => update.mutate({ locale: event.currentTarget.value })}
              maw={280}
            />
          </Stack>
        </Card>
        {user.email ? <PasswordCard email={user.email} /> : null}
      </Stack>
    </>
  );
}
