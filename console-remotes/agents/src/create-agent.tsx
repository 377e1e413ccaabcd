import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Button,
  Card,
  ErrorNotice,
  Group,
  Link,
  PageHeader,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Tooltip,
  useNavigate,
  useProject,
  useV1,
  useValidatedSubmit,
} from '@engram/console-kit';
import { NumberInput, Select, TagsInput, Textarea } from '@engram/console-kit/widgets';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { agentKeys, useConsoleSettings, useMemberPermissions, useModels, useTags } from './queries.js';

type DraftBlock = { key: number; label: string; value: string; limit: number };

const DEFAULT_BLOCKS: DraftBlock[] = [
  { key: 1, label: 'persona', value: 'I am a helpful assistant. I remember what matters to the people I work with.', limit: 5000 },
  { key: 2, label: 'human', value: '', limit: 5000 },
];

function formatContext(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

/** A new agent: name, model (from /v1/models), tags and its starting memory blocks. */
export function CreateAgentPage() {
  const v1 = useV1();
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const models = useModels();
  const tags = useTags();
  const settings = useConsoleSettings();
  const { can } = useMemberPermissions();
  // Refused only once the permissions are known, so the form does not flash a refusal while they load.
  const refused = settings.isSuccess && !can('create_agents');
  const [name, setName] = useState('');
  const [model, setModel] = useState<string | null>(null);
  const [description, setDescription] = useState('');
  const [agentTags, setAgentTags] = useState<string[]>([]);
  const [blocks, setBlocks] = useState<DraftBlock[]>(DEFAULT_BLOCKS);
  const [nextKey, setNextKey] = useState(3);

  const create = useMutation({
    mutationFn: () =>
      v1.createAgent({
        name: name.trim(),
        model: model ?? undefined,
        ...(description.trim() ? { description: description.trim() } : {}),
        tags: agentTags,
        project_id: project.id,
        memory_blocks: blocks.map((block) => ({ label: block.label.trim(), value: block.value, limit: block.limit })),
      }),
    onSuccess: async (agent) => {
      await queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.tags(v1) });
      void navigate(`../${agent.id}`, { relative: 'path' });
    },
  });
  const { errors, onSubmit } = useValidatedSubmit(
    'createAgent',
    { name, model: model ?? '', memoryBlocks: blocks.map(({ label, value, limit }) => ({ label, value, limit })) },
    () => create.mutate(),
  );

  const modelOptions = Object.entries(
    (models.data ?? []).reduce<Record<string, Array<{ value: string; label: string }>>>((groups, candidate) => {
      const handle = candidate.handle ?? `${candidate.provider_name}/${candidate.model}`;
      (groups[candidate.provider_name] ??= []).push({ value: handle, label: `${handle} · ${formatContext(candidate.context_window)} context` });
      return groups;
    }, {}),
  ).map(([group, items]) => ({ group, items }));

  const updateBlock = (key: number, change: Partial<DraftBlock>) => setBlocks(blocks.map((block) => (block.key === key ? { ...block, ...change } : block)));

  return (
    <>
      <PageHeader title="New agent" description={`In ${project.name}`} />
      <form onSubmit={onSubmit} noValidate>
        <Stack maw={820} gap="lg">
          {refused ? (
            <Alert color="yellow" variant="light" title="Your role cannot create agents">
              Ask an admin of {project.name}&apos;s organization for the editor role, or for the permission to create agents.
            </Alert>
          ) : null}
          {create.error ? <ErrorNotice error={create.error} title="The agent was not created" /> : null}
          <Card withBorder radius="lg" p="lg">
            <Stack>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput label="Name" placeholder="support-agent" value={name} onChange={(event) => setName(event.currentTarget.value)} error={errors.name} withAsterisk />
                <Select
                  label="Model"
                  placeholder={models.isPending ? 'Loading models…' : 'Choose a model'}
                  data={modelOptions}
                  value={model}
                  onChange={setModel}
                  searchable
                  nothingFoundMessage={models.error ? 'Models could not be loaded' : 'No model matches'}
                  error={errors.model ?? (models.error ? 'The models could not be loaded' : undefined)}
                  withAsterisk
                  aria-label="Model"
                />
              </SimpleGrid>
              <Textarea label="Description" placeholder="What this agent is for" autosize minRows={2} value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
              <TagsInput label="Tags" placeholder="Type a tag and press Enter" data={tags.data ?? []} value={agentTags} onChange={setAgentTags} clearable />
            </Stack>
          </Card>

          <Stack gap="xs">
            <Group justify="space-between">
              <Stack gap={0}>
                <Text fw={600}>Memory blocks</Text>
                <Text size="sm" c="dimmed">
                  Always in the agent&apos;s context; the agent edits them with its memory tools.
                </Text>
              </Stack>
              <Button
                variant="light"
                size="xs"
                leftSection={<IconPlus size={14} />}
                onClick={() => {
                  setBlocks([...blocks, { key: nextKey, label: '', value: '', limit: 5000 }]);
                  setNextKey(nextKey + 1);
                }}
              >
                Add block
              </Button>
            </Group>
            {blocks.map((block, index) => (
              <Card key={block.key} withBorder radius="lg" p="md" data-testid="memory-block-draft">
                <Stack gap="xs">
                  <Group align="flex-start" wrap="nowrap" gap="sm">
                    <TextInput
                      label="Label"
                      value={block.label}
                      onChange={(event) => updateBlock(block.key, { label: event.currentTarget.value })}
                      error={errors[`memoryBlocks.${index}.label`]}
                      style={{ flex: 1 }}
                      ff="monospace"
                    />
                    <NumberInput
                      label="Limit (characters)"
                      value={block.limit}
                      onChange={(value) => updateBlock(block.key, { limit: Number(value) || 0 })}
                      error={errors[`memoryBlocks.${index}.limit`]}
                      min={1}
                      step={500}
                      w={170}
                    />
                    <Tooltip label="Remove block">
                      <ActionIcon mt={26} variant="subtle" color="red" onClick={() => setBlocks(blocks.filter((candidate) => candidate.key !== block.key))} aria-label="Remove block">
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Group>
                  <Textarea
                    label="Value"
                    autosize
                    minRows={2}
                    maxRows={8}
                    value={block.value}
                    onChange={(event) => updateBlock(block.key, { value: event.currentTarget.value })}
                    description={`${block.value.length} / ${block.limit} characters`}
                    error={block.value.length > block.limit ? 'Longer than the limit' : undefined}
                  />
                </Stack>
              </Card>
            ))}
          </Stack>

          <Group justify="flex-end">
            <Button component={Link} to=".." relative="path" variant="default">
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={refused}>
              Create agent
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
