import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Center, ErrorNotice, Loader, Paper, sharingApi, Stack, Text, TextInput, Title, useNavigate, useParams, type LaunchLinkMetadata } from '@engram/console-kit';
import { IconRocket } from '@tabler/icons-react';
import { PublicFrame, RefusedNotice } from './shared-chat.js';

function LaunchForm({ launchId, metadata }: { launchId: string; metadata: LaunchLinkMetadata }) {
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(metadata.memoryVariables.map((variable) => [variable.key, variable.defaultValue ?? ''])),
  );
  const launch = useMutation({
    mutationFn: () => sharingApi.launch(launchId, values),
    onSuccess: ({ chatId }) => void navigate(`/chat/${chatId}`),
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    launch.mutate();
  };
  return (
    <Stack component="form" onSubmit={onSubmit}>
      {metadata.memoryVariables.map((variable) => (
        <TextInput
          key={variable.key}
          label={variable.key}
          required={variable.defaultValue === null}
          value={values[variable.key] ?? ''}
          onChange={(event) => {
            const value = event.currentTarget.value;
            setValues((current) => ({ ...current, [variable.key]: value }));
          }}
        />
      ))}
      {launch.error ? <ErrorNotice error={launch.error} title="The agent could not be launched" /> : null}
      <Button type="submit" leftSection={<IconRocket size={16} />} loading={launch.isPending}>
        Launch my agent
      </Button>
    </Stack>
  );
}

/**
 * `/launch/{launchId}` (spec 000 §2): a template's launch page. The visitor fills the template's memory
 * variables and gets an agent of their own, whose shared chat opens next; launching again opens the same one.
 */
export function LaunchPage() {
  const { launchId = '' } = useParams();
  const metadata = useQuery({ queryKey: ['launch-link', launchId], queryFn: () => sharingApi.launchMetadata(launchId), retry: false });
  return (
    <PublicFrame>
      {metadata.isPending ? <Loader m="xl" /> : null}
      {metadata.error ? <RefusedNotice error={metadata.error} what="launch link" path={`/launch/${launchId}`} /> : null}
      {metadata.data ? (
        <Center>
          <Paper withBorder radius="lg" p="xl" w="100%" maw={480}>
            <Stack>
              <Title order={2} data-testid="launch-name">
                {metadata.data.name}
              </Title>
              {metadata.data.description ? <Text c="dimmed">{metadata.data.description}</Text> : null}
              <LaunchForm launchId={launchId} metadata={metadata.data} />
            </Stack>
          </Paper>
        </Center>
      ) : null}
    </PublicFrame>
  );
}
