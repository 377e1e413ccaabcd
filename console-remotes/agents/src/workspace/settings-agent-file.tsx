import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, ErrorNotice, Group, Modal, Stack, Text, TextInput, useNavigate, useProject, useV1, type Agent } from '@engram/console-kit';
import { FileButton } from '@engram/console-kit/widgets';
import { IconCopy, IconDownload, IconUpload } from '@tabler/icons-react';
import { duplicateAgent, exportAgentFile, importAgentFile, type ImportedAgents } from '../ade-api.js';
import { agentKeys } from '../queries.js';

/** Hands the browser a file to save, as a download link would. */
function saveFile(file: Blob, fileName: string) {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The browser reads the file after the click returns; the address is freed once it surely has.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Downloads the agent as an agent file (`<name>.af`, JSON): configuration, memory blocks, tools and history. */
export function ExportAgentButton({ agent }: { agent: Agent }) {
  const exported = useMutation({
    mutationFn: () => exportAgentFile(agent.id),
    onSuccess: (file) => saveFile(file, `${agent.name}.af`),
  });
  return (
    <Stack gap={4}>
      <Button size="xs" variant="default" leftSection={<IconDownload size={14} />} loading={exported.isPending} onClick={() => exported.mutate()}>
        Export agent file
      </Button>
      {exported.error ? <ErrorNotice error={exported.error} title="The agent was not exported" /> : null}
    </Stack>
  );
}

/** A new agent like this one (its file imported under another name), opened once it exists. */
export function DuplicateAgentButton({ agent }: { agent: Agent }) {
  const project = useProject();
  const v1 = useV1();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(`${agent.name} copy`);
  const duplicated = useMutation({
    mutationFn: () => duplicateAgent(agent.id, name.trim(), project.id),
    onSuccess: async (copyId) => {
      await queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) });
      setOpen(false);
      void navigate(`../${copyId}`, { relative: 'path' });
    },
  });
  return (
    <>
      <Button size="xs" variant="default" leftSection={<IconCopy size={14} />} onClick={() => setOpen(true)}>
        Duplicate
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="Duplicate this agent" centered>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (name.trim()) duplicated.mutate();
          }}
        >
          <Stack>
            {duplicated.error ? <ErrorNotice error={duplicated.error} title="The agent was not duplicated" /> : null}
            <Text size="sm">The copy starts with this agent&apos;s settings, memory blocks, tools and messages; the two change separately afterwards.</Text>
            <TextInput label="Name of the copy" value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus required />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={duplicated.isPending} disabled={!name.trim()}>
                Duplicate
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/**
 * Creates agents from an agent file (`.af`, as Engram and Letta export them) in the current project, then opens the
 * first. When part of the file did not come over as it was (a model this server lacks, a tool it cannot run, a
 * secret or server credential to give), the notes are shown first. `agentPath` turns an agent id into the route of
 * its workspace from where the button is.
 */
export function ImportAgentFileButton({ agentPath, size = 'xs' }: { agentPath: (agentId: string) => string; size?: 'xs' | 'sm' }) {
  const project = useProject();
  const v1 = useV1();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [withNotes, setWithNotes] = useState<ImportedAgents | null>(null);
  const open = (agentId: string | undefined) => {
    if (agentId) void navigate(agentPath(agentId), { relative: 'path' });
  };
  const imported = useMutation({
    mutationFn: (file: File) => importAgentFile(file, file.name, { projectId: project.id }),
    onSuccess: async (result) => {
      await queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) });
      if (result.warnings.length > 0) setWithNotes(result);
      else open(result.agent_ids[0]);
    },
  });
  return (
    <Stack gap={4}>
      <Modal opened={withNotes !== null} onClose={() => setWithNotes(null)} title="Imported, with notes" centered size="lg">
        <Stack>
          <Text size="sm">
            {withNotes?.agent_ids.length === 1 ? 'The agent was imported' : `${withNotes?.agent_ids.length ?? 0} agents were imported`}, but some of the file did not come over as it was:
          </Text>
          <Stack gap={6} component="ul" data-testid="import-warnings" style={{ margin: 0, paddingLeft: 20 }}>
            {withNotes?.warnings.map((warning) => (
              <Text key={`${warning.loc.join('.')}:${warning.msg}`} component="li" size="sm">
                {warning.msg}
              </Text>
            ))}
          </Stack>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setWithNotes(null)}>
              Close
            </Button>
            <Button onClick={() => open(withNotes?.agent_ids[0])}>Open the agent</Button>
          </Group>
        </Stack>
      </Modal>
      <FileButton onChange={(file) => file && imported.mutate(file)} accept=".af,.json,application/json">
        {(props) => (
          <Button {...props} size={size} variant="default" leftSection={<IconUpload size={14} />} loading={imported.isPending}>
            Import agent file
          </Button>
        )}
      </FileButton>
      {imported.error ? <ErrorNotice error={imported.error} title="The agent file was not imported" /> : null}
    </Stack>
  );
}
