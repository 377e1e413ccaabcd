import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, ErrorNotice, Group, Stack, Text, useDebouncedValue, useProject, useV1 } from '@engram/console-kit';
import { Select } from '@engram/console-kit/widgets';
import { IconCheck, IconPlugConnected } from '@tabler/icons-react';
import { agentKeys } from '../queries.js';

/** Finds an agent of the project by name (the first twenty that match), for the pickers that attach something to one. */
export function useAgentPicker() {
  const v1 = useV1();
  const project = useProject();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const filter = { project_id: project.id, query_text: debounced || undefined };
  const agents = useQuery({ queryKey: agentKeys.list(v1, { ...filter, picker: true }), queryFn: () => v1.listAgents({ ...filter, limit: 20 }) });
  return { search, setSearch, agents };
}

/** Picks an agent of the project and attaches the tool to it. */
export function AttachToAgent({ toolId, toolName }: { toolId: string; toolName: string }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const { search, setSearch, agents } = useAgentPicker();
  // The name is kept from the option picked: the list it came from changes with the search.
  const [chosen, setChosen] = useState<{ id: string; name: string } | null>(null);
  const attach = useMutation({
    mutationFn: async (target: { id: string; name: string }) => {
      await v1.attachTool(target.id, toolId);
      await queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, target.id) });
      return target.name;
    },
  });
  return (
    <Stack gap="xs">
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <Select
          style={{ flex: 1 }}
          label={`Attach ${toolName} to an agent`}
          placeholder={agents.isPending ? 'Loading agents…' : 'Choose an agent of this project'}
          data={(agents.data ?? []).map((agent) => ({ value: agent.id, label: agent.name }))}
          searchable
          searchValue={search}
          onSearchChange={setSearch}
          value={chosen?.id ?? null}
          onChange={(value, option) => setChosen(value && option ? { id: value, name: option.label } : null)}
          nothingFoundMessage="No agent by that name"
        />
        <Button leftSection={<IconPlugConnected size={16} />} disabled={chosen === null} loading={attach.isPending} onClick={() => chosen && attach.mutate(chosen)}>
          Attach
        </Button>
      </Group>
      {attach.error ? <ErrorNotice error={attach.error} title="The tool was not attached" /> : null}
      {attach.data && !attach.isPending ? (
        <Group gap={6} c="teal" data-testid="attached-notice">
          <IconCheck size={16} />
          <Text size="sm">Attached to {attach.data}.</Text>
        </Group>
      ) : null}
    </Stack>
  );
}
