import { useQuery } from '@tanstack/react-query';
import { useV1 } from '@engram/console-kit';
import { templatesApi } from './templates-api.js';

/** Query keys of templates, per organization: a switch of organization never shows another one's templates. */
export const templateKeys = {
  all: (organizationId: string) => ['console', 'templates', organizationId] as const,
  list: (organizationId: string, filter: object) => [...templateKeys.all(organizationId), 'list', filter] as const,
  template: (organizationId: string, templateId: string) => [...templateKeys.all(organizationId), 'template', templateId] as const,
  versions: (organizationId: string, templateId: string) => [...templateKeys.template(organizationId, templateId), 'versions'] as const,
  migrations: (organizationId: string, templateId: string) => [...templateKeys.template(organizationId, templateId), 'migrations'] as const,
  simulated: (organizationId: string, templateId: string) => [...templateKeys.template(organizationId, templateId), 'simulated'] as const,
  simulatedVariables: (organizationId: string, simulatedAgentId: string) => [...templateKeys.all(organizationId), 'simulated-variables', simulatedAgentId] as const,
  blockTemplates: (organizationId: string) => [...templateKeys.all(organizationId), 'block-templates'] as const,
  blockTemplateList: (organizationId: string, filter: object) => [...templateKeys.blockTemplates(organizationId), filter] as const,
};

/** The organization whose templates are shown. */
export function useOrganizationId(): string {
  return useV1().organizationId;
}

export function useTemplate(templateId: string) {
  const organizationId = useOrganizationId();
  return useQuery({ queryKey: templateKeys.template(organizationId, templateId), queryFn: () => templatesApi.get(templateId) });
}

/** Every saved version, newest first (a template rarely has more than a page of 100). */
export function useTemplateVersions(templateId: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: templateKeys.versions(organizationId, templateId),
    queryFn: async () => (await templatesApi.versions(templateId, { offset: 0, limit: 100 })).versions,
  });
}

/** The template's migrations, read again every second while one of them runs, so progress shows live. */
export function useMigrations(templateId: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: templateKeys.migrations(organizationId, templateId),
    queryFn: async () => (await templatesApi.migrations(templateId)).migrations,
    refetchInterval: (query) => (query.state.data?.some((migration) => migration.status === 'running') ? 1000 : false),
  });
}

/** What migrating the template's agents to a version (`name:3`, or `name:dev` for saving with a migration) needs. */
export function useMigrationRequirements(slug: string | null) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: [...templateKeys.all(organizationId), 'migration-requirements', slug],
    queryFn: () => templatesApi.migrationRequirements(slug!),
    enabled: slug !== null,
  });
}

/** The template's default simulated agent, built by the API on first visit. */
export function useSimulatedAgent(templateId: string) {
  const organizationId = useOrganizationId();
  return useQuery({ queryKey: templateKeys.simulated(organizationId, templateId), queryFn: () => templatesApi.simulatedAgent(templateId), retry: false });
}

export function useBlockTemplates(search: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: templateKeys.blockTemplateList(organizationId, { search }),
    queryFn: () => templatesApi.blockTemplates({ search, offset: 0, limit: 100 }),
  });
}
