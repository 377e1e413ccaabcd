import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AGENT_FILE_ACCESS_LEVELS,
  Alert,
  Button,
  CopyField,
  Divider,
  ErrorNotice,
  Loader,
  Modal,
  NativeSelect,
  SHARE_ACCESS_LEVELS,
  sharingApi,
  Stack,
  Text,
  TextInput,
  useDisclosure,
  useProject,
  type AgentFileAccessLevel,
  type ShareAccessLevel,
} from '@engram/console-kit';
import { Textarea } from '@engram/console-kit/widgets';
import { IconRocket, IconShare } from '@tabler/icons-react';

const absolute = (path: string) => `${window.location.origin}${path}`;

function AccessLevelSelect({ value, onChange, disabled, label }: { value: ShareAccessLevel; onChange: (level: ShareAccessLevel) => void; disabled?: boolean; label: string }) {
  const chosen = SHARE_ACCESS_LEVELS.find((level) => level.value === value);
  return (
    <NativeSelect
      label={label}
      description={chosen?.description}
      value={value}
      disabled={disabled}
      data={SHARE_ACCESS_LEVELS.map((level) => ({ value: level.value, label: level.label }))}
      onChange={(event) => onChange(event.currentTarget.value as ShareAccessLevel)}
    />
  );
}

function SharedChatSection({ agentId }: { agentId: string }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const key = ['shared-chat-configuration', project.id, agentId];
  const configuration = useQuery({ queryKey: key, queryFn: () => sharingApi.chatConfiguration(project.id, agentId) });
  const change = useMutation({
    mutationFn: (level: ShareAccessLevel) => sharingApi.setChatAccessLevel(project.id, agentId, level),
    onSuccess: (updated) => queryClient.setQueryData(key, updated),
  });
  if (configuration.isPending) return <Loader size="sm" />;
  if (configuration.error) return <ErrorNotice error={configuration.error} title="The shared chat could not be loaded" />;
  return (
    <Stack gap="sm">
      <AccessLevelSelect label="Who can chat" value={configuration.data.accessLevel} onChange={(level) => change.mutate(level)} disabled={change.isPending} />
      {change.error ? <ErrorNotice error={change.error} title="The level was not changed" /> : null}
      <CopyField label="Chat link" value={absolute(`/chat/${configuration.data.chatId}`)} description="Each visitor gets a conversation of their own with this agent." />
    </Stack>
  );
}

function PublishSection({ agentId }: { agentId: string }) {
  const [values, setValues] = useState({ name: '', summary: '', description: '', accessLevel: 'public' as AgentFileAccessLevel });
  const publish = useMutation({ mutationFn: () => sharingApi.publishAgentFile({ agentId, ...values }) });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    publish.mutate();
  };
  const field = (name: 'name' | 'summary' | 'description') => ({
    value: values[name],
    onChange: (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setValues((current) => ({ ...current, [name]: value }));
    },
  });
  return (
    <Stack component="form" gap="sm" onSubmit={onSubmit}>
      <TextInput label="File name" description="Letters, digits, underscores and dashes; at most 25" maxLength={25} required {...field('name')} />
      <TextInput label="Summary" maxLength={200} required {...field('summary')} />
      <Textarea label="Description" autosize minRows={2} maxRows={6} required {...field('description')} />
      <NativeSelect
        label="Who can see it"
        value={values.accessLevel}
        data={AGENT_FILE_ACCESS_LEVELS}
        onChange={(event) => {
          const accessLevel = event.currentTarget.value as AgentFileAccessLevel;
          setValues((current) => ({ ...current, accessLevel }));
        }}
      />
      {publish.error ? <ErrorNotice error={publish.error} title="The agent was not published" /> : null}
      {publish.data ? <Alert color="teal">Published as {publish.data.name}: it is in the agent file gallery.</Alert> : null}
      <Button type="submit" variant="light" loading={publish.isPending}>
        Publish as an agent file
      </Button>
    </Stack>
  );
}

/** The agent's Share button: its shared chat's level and link, and publishing it as an agent file (without its messages). */
export function ShareAgentButton({ agentId }: { agentId: string }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button size="xs" variant="default" leftSection={<IconShare size={14} />} onClick={open}>
        Share
      </Button>
      <Modal opened={opened} onClose={close} title="Share this agent" size="lg">
        <Stack>
          <SharedChatSection agentId={agentId} />
          <Divider label="Agent file gallery" labelPosition="left" />
          <Text size="sm" c="dimmed">
            Publish the agent as it is now, without its messages, for others to download and import.
          </Text>
          <PublishSection agentId={agentId} />
        </Stack>
      </Modal>
    </>
  );
}

function LaunchLinkBody({ templateId }: { templateId: string }) {
  const queryClient = useQueryClient();
  const key = ['launch-link', templateId];
  const link = useQuery({ queryKey: key, queryFn: () => sharingApi.launchLink(templateId) });
  const [level, setLevel] = useState<ShareAccessLevel>('everyone');
  const create = useMutation({ mutationFn: () => sharingApi.createLaunchLink(templateId, level), onSuccess: (made) => queryClient.setQueryData(key, made) });
  const change = useMutation({
    mutationFn: (next: ShareAccessLevel) => sharingApi.setLaunchLinkAccessLevel(templateId, next),
    onSuccess: (updated) => queryClient.setQueryData(key, updated),
  });
  if (link.isPending) return <Loader size="sm" />;
  if (link.error) return <ErrorNotice error={link.error} title="The launch link could not be loaded" />;
  if (!link.data) {
    return (
      <Stack gap="sm">
        <Text size="sm">A launch link gives each visitor an agent of their own from this template, with the memory variables they fill in, and opens its chat.</Text>
        <AccessLevelSelect label="Who can launch" value={level} onChange={setLevel} />
        {create.error ? <ErrorNotice error={create.error} title="The launch link was not made" /> : null}
        <Button leftSection={<IconRocket size={16} />} onClick={() => create.mutate()} loading={create.isPending}>
          Create launch link
        </Button>
      </Stack>
    );
  }
  return (
    <Stack gap="sm">
      <AccessLevelSelect label="Who can launch" value={link.data.accessLevel} onChange={(next) => change.mutate(next)} disabled={change.isPending} />
      {change.error ? <ErrorNotice error={change.error} title="The level was not changed" /> : null}
      <CopyField label="Launch link" value={absolute(link.data.launchLink)} />
    </Stack>
  );
}

/** The template's Launch link button. */
export function LaunchLinkButton({ templateId }: { templateId: string }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button size="xs" variant="default" leftSection={<IconShare size={14} />} onClick={open}>
        Launch link
      </Button>
      <Modal opened={opened} onClose={close} title="Launch link" size="lg">
        <LaunchLinkBody templateId={templateId} />
      </Modal>
    </>
  );
}
