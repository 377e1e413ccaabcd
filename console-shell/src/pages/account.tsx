import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Button, Card, ErrorNotice, Group, NativeSelect, PageHeader, SegmentedControl, Stack, Text, TextInput, useSession } from '@engram/console-kit';

const LOCALES = [
  { value: 'en', label: 'English' },
  { value: 'en-GB', label: 'English (UK)' },
  { value: 'de', label: 'Deutsch' },
  { value: 'fr', label: 'Français' },
  { value: 'es', label: 'Español' },
  { value: 'ja', label: '日本語' },
];

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
      </Stack>
    </>
  );
}
