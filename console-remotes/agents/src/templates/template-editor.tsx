import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ActionIcon, Alert, Badge, Button, ErrorNotice, Group, Link, Loader, Menu, Stack, Text, Title, Tooltip, useParams, useV1 } from '@engram/console-kit';
import { IconArrowLeft, IconDots, IconHistory, IconRefresh, IconRocket, IconDeviceFloppy, IconTransfer, IconEraser } from '@tabler/icons-react';
import { agentKeys, useMemberPermissions } from '../queries.js';
import { AgentWorkspaceView } from '../workspace/workspace.js';
import { DeployModal, MigrationsModal, SaveVersionModal, VersionsModal } from './template-dialogs.js';
import { TemplatePanel } from './template-panel.js';
import { templateKeys, useOrganizationId, useSimulatedAgent, useTemplate } from './template-queries.js';
import { templatesApi } from './templates-api.js';
import type { AgentTemplate, SimulatedAgent } from './template-types.js';
import { LaunchLinkButton } from '../sharing/share-dialogs.js';

type Dialog = { kind: 'save' } | { kind: 'versions' } | { kind: 'deploy'; version: string } | { kind: 'migrations'; version: string | null };

/** Starting the simulated agent's conversation over, or rebuilding it from the working state. */
function useSimulatedAgentAction(template: AgentTemplate, action: (simulated: SimulatedAgent) => Promise<unknown>) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  return useMutation({
    mutationFn: action,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: templateKeys.template(organizationId, template.id) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) });
    },
  });
}

function EditorHeader({ template, simulated, open }: { template: AgentTemplate; simulated: SimulatedAgent; open: (dialog: Dialog) => void }) {
  const { can } = useMemberPermissions();
  const flush = useSimulatedAgentAction(template, (agent) => templatesApi.flushSimulatedAgent(agent.id));
  const refresh = useSimulatedAgentAction(template, (agent) => templatesApi.refreshSimulatedAgent(agent.id));
  const hasVersion = template.latestDeployedVersion !== '0';
  return (
    <Stack gap="xs" mb="sm">
      {/* The name and its badges come first and keep their room; the actions wrap below them where the window is narrow. */}
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0, flex: '1 1 320px' }}>
          <Tooltip label="All templates">
            <ActionIcon component={Link} to=".." relative="path" variant="subtle" aria-label="All templates">
              <IconArrowLeft size={18} />
            </ActionIcon>
          </Tooltip>
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Group gap="xs" wrap="wrap" data-testid="template-header-title">
              <Title order={3} fz={{ base: 'h4', sm: 'h3' }} lh={1.2} style={{ overflowWrap: 'anywhere' }} data-testid="template-name">
                {template.name}
              </Title>
              <Badge variant="light" tt="none" data-testid="template-version">
                {hasVersion ? `v${template.latestDeployedVersion}` : 'no version yet'}
              </Badge>
              {template.hasUnsavedChanges ? (
                <Badge variant="outline" color="yellow" tt="none" data-testid="unsaved-changes">
                  unsaved changes
                </Badge>
              ) : null}
            </Group>
            <Text size="xs" c="dimmed">
              Chat with the simulated agent to try the template; save a version to deploy it.
            </Text>
          </Stack>
        </Group>
        <Group gap={6} wrap="wrap">
          {can('update_templates') ? (
            <Button size="xs" leftSection={<IconDeviceFloppy size={14} />} onClick={() => open({ kind: 'save' })}>
              Save version
            </Button>
          ) : null}
          <Button size="xs" variant="default" leftSection={<IconHistory size={14} />} onClick={() => open({ kind: 'versions' })}>
            Versions
          </Button>
          {can('create_agents') ? (
            <Button size="xs" variant="default" leftSection={<IconRocket size={14} />} disabled={!hasVersion} onClick={() => open({ kind: 'deploy', version: template.latestDeployedVersion })}>
              Deploy
            </Button>
          ) : null}
          <Button size="xs" variant="default" leftSection={<IconTransfer size={14} />} onClick={() => open({ kind: 'migrations', version: null })}>
            Migrations
          </Button>
          {can('update_templates') ? <LaunchLinkButton templateId={template.id} /> : null}
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <ActionIcon variant="default" size="lg" aria-label="Simulation">
                <IconDots size={16} />
              </ActionIcon>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Label>Simulated agent</Menu.Label>
              <Menu.Item leftSection={<IconEraser size={14} />} onClick={() => flush.mutate(simulated)}>
                Start the conversation over
              </Menu.Item>
              <Menu.Item leftSection={<IconRefresh size={14} />} onClick={() => refresh.mutate(simulated)}>
                Rebuild from the template
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </Group>
      {flush.error ? <ErrorNotice error={flush.error} title="The conversation was not reset" /> : null}
      {refresh.error ? <ErrorNotice error={refresh.error} title="The simulated agent was not rebuilt" /> : null}
      {simulated.isCorrupted ? (
        <Alert color="red" title="The simulated agent could not be built from the template" data-testid="simulated-corrupted">
          {simulated.reason?.startsWith('Missing memory variable') ? `${simulated.reason}. Give the simulation a value for each under Variables.` : simulated.reason}
        </Alert>
      ) : null}
    </Stack>
  );
}

/**
 * A template's editor: the agent workspace of its simulated agent, with the template's own panel (memory blocks
 * as written, block templates, variables, system prompt) in place of the agent's memory, and saving versions,
 * version history with diffs, deploying agents and migrating them.
 */
export function TemplateEditor() {
  const { templateId = '' } = useParams();
  const template = useTemplate(templateId);
  const simulated = useSimulatedAgent(templateId);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  if (template.isPending || simulated.isPending) return <Loader m="xl" />;
  if (template.error) return <ErrorNotice error={template.error} title="This template could not be opened" onRetry={() => void template.refetch()} />;
  if (simulated.error) return <ErrorNotice error={simulated.error} title="The template's simulated agent could not be built" onRetry={() => void simulated.refetch()} />;
  const close = () => setDialog(null);
  const header = <EditorHeader template={template.data} simulated={simulated.data} open={setDialog} />;
  return (
    <>
      {simulated.data.agentId ? (
        // A rebuilt simulated agent is another agent: its workspace starts afresh (its chat included).
        <AgentWorkspaceView
          key={simulated.data.agentId}
          agentId={simulated.data.agentId}
          header={header}
          templatePanel={<TemplatePanel template={template.data} simulated={simulated.data} />}
        />
      ) : (
        // No agent yet (its variables have no value, or the working state cannot be built): the template's own
        // panel, where the values are given, stands alone until one is built.
        <Stack gap="md">
          {header}
          <TemplatePanel template={template.data} simulated={simulated.data} />
        </Stack>
      )}
      {dialog?.kind === 'save' ? <SaveVersionModal template={template.data} onClose={close} onMigrationStarted={() => setDialog({ kind: 'migrations', version: null })} /> : null}
      {dialog?.kind === 'versions' ? (
        <VersionsModal
          template={template.data}
          onClose={close}
          onDeploy={(version) => setDialog({ kind: 'deploy', version })}
          onMigrate={(version) => setDialog({ kind: 'migrations', version })}
        />
      ) : null}
      {dialog?.kind === 'deploy' ? <DeployModal template={template.data} initialVersion={dialog.version} onClose={close} /> : null}
      {dialog?.kind === 'migrations' ? <MigrationsModal template={template.data} initialVersion={dialog.version} onClose={close} /> : null}
    </>
  );
}
