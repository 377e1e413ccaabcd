import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ErrorNotice, useProject } from '@engram/console-kit';
import { Select } from '@engram/console-kit/widgets';
import { templateKeys, useOrganizationId } from './template-queries.js';
import { templatesApi, versionSlug } from './templates-api.js';
import type { TemplateVersion } from './template-types.js';

/** `v2 · message`, and what the version needs before it can run (variables without a default). */
function versionLabel(version: TemplateVersion): string {
  const needs = version.agentState.memoryVariables.filter((variable) => variable.defaultValue === null).map((variable) => variable.key);
  return `v${version.version}${version.message ? ` · ${version.message}` : ''}${needs.length ? ` · needs ${needs.join(', ')}` : ''}`;
}

/**
 * Two selects, a template of the project and then one of its saved versions; `onChange` gets the version's
 * `name:version` and the version itself (its variables), or nulls until both are chosen.
 */
export function TemplateVersionSelect({ onChange }: { onChange: (slug: string | null, version: TemplateVersion | null) => void }) {
  const project = useProject();
  const organizationId = useOrganizationId();
  const [templateId, setTemplateId] = useState<string | null>(null);
  const [version, setVersion] = useState<string | null>(null);
  const filter = { projectId: project.id, offset: 0, limit: 100 };
  const templates = useQuery({ queryKey: templateKeys.list(organizationId, filter), queryFn: () => templatesApi.list(filter) });
  const versions = useQuery({
    queryKey: templateKeys.versions(organizationId, templateId ?? ''),
    queryFn: async () => (await templatesApi.versions(templateId!, { offset: 0, limit: 100 })).versions,
    enabled: templateId !== null,
  });
  const templateOf = (id: string | null) => templates.data?.agentTemplates.find((candidate) => candidate.id === id);
  return (
    <>
      {templates.error ? <ErrorNotice error={templates.error} title="The templates could not be loaded" onRetry={() => void templates.refetch()} /> : null}
      <Select
        label="Template"
        placeholder={templates.isPending ? 'Loading…' : 'Choose a template'}
        data={(templates.data?.agentTemplates ?? []).map((candidate) => ({ value: candidate.id, label: candidate.name }))}
        value={templateId}
        onChange={(value) => {
          setTemplateId(value);
          setVersion(null);
          onChange(null, null);
        }}
        nothingFoundMessage="No template in this project"
        searchable
      />
      <Select
        label="Version"
        placeholder={templateId && versions.isPending ? 'Loading…' : 'Choose a saved version'}
        data={(versions.data ?? []).map((candidate) => ({ value: candidate.version, label: versionLabel(candidate) }))}
        value={version}
        onChange={(value) => {
          setVersion(value);
          const template = templateOf(templateId);
          const chosen = versions.data?.find((candidate) => candidate.version === value) ?? null;
          onChange(template && value ? versionSlug(template, value) : null, chosen);
        }}
        disabled={!templateId}
        nothingFoundMessage="The template has no saved version"
      />
    </>
  );
}
