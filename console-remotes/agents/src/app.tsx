import { lazy, Suspense } from 'react';
import { Loader, Route, Routes } from '@engram/console-kit';
import { AgentsListPage } from './agents-list.js';
import { CreateAgentPage } from './create-agent.js';
import { SectionLayout } from './section-layout.js';
import { AgentWorkspace } from './workspace/workspace.js';

// The platform screens load on first visit, so they add nothing to what the agents list and the ADE download.
const ToolsPage = lazy(() => import('./tools/tools-page.js').then((module) => ({ default: module.ToolsPage })));
const ToolPage = lazy(() => import('./tools/tool-page.js').then((module) => ({ default: module.ToolPage })));
const McpServersPage = lazy(() => import('./mcp/mcp-servers-page.js').then((module) => ({ default: module.McpServersPage })));
const McpServerPage = lazy(() => import('./mcp/mcp-server-page.js').then((module) => ({ default: module.McpServerPage })));
const ProvidersPage = lazy(() => import('./providers/providers-page.js').then((module) => ({ default: module.ProvidersPage })));
const IdentitiesPage = lazy(() => import('./identities/identities-page.js').then((module) => ({ default: module.IdentitiesPage })));
const GroupsPage = lazy(() => import('./groups/groups-page.js').then((module) => ({ default: module.GroupsPage })));
const GroupPage = lazy(() => import('./groups/group-page.js').then((module) => ({ default: module.GroupPage })));
const JobsPage = lazy(() => import('./jobs/jobs-page.js').then((module) => ({ default: module.JobsPage })));
const SandboxPage = lazy(() => import('./sandbox/sandbox-page.js').then((module) => ({ default: module.SandboxPage })));
const TemplatesPage = lazy(() => import('./templates/templates-page.js').then((module) => ({ default: module.TemplatesPage })));
const BlockTemplatesPage = lazy(() => import('./templates/block-templates-page.js').then((module) => ({ default: module.BlockTemplatesPage })));
const AgentFilesPage = lazy(() => import('./sharing/agent-files-page.js').then((module) => ({ default: module.AgentFilesPage })));
const DatasetsPage = lazy(() => import('./datasets/datasets-page.js').then((module) => ({ default: module.DatasetsPage })));
const DatasetPage = lazy(() => import('./datasets/dataset-page.js').then((module) => ({ default: module.DatasetPage })));
const RunResultsPage = lazy(() => import('./datasets/run-results-page.js').then((module) => ({ default: module.RunResultsPage })));
const RunComparisonPage = lazy(() => import('./datasets/run-comparison-page.js').then((module) => ({ default: module.RunComparisonPage })));
const AbTestsPage = lazy(() => import('./ab-tests/ab-tests-page.js').then((module) => ({ default: module.AbTestsPage })));
const AbTestPage = lazy(() => import('./ab-tests/ab-test-page.js').then((module) => ({ default: module.AbTestPage })));
const TemplateEditor = lazy(() => import('./templates/template-editor.js').then((module) => ({ default: module.TemplateEditor })));

/**
 * The agents remote's one app entry (`agents/app`), mounted by the shell under
 * /projects/:projectSlug/agents/*; the project comes from the kit's ProjectContext. The agent workspace
 * and the new-agent form take the whole page, as does a template's editor; the other screens share a row of links
 * between them.
 */
export default function AgentsApp() {
  return (
    <Routes>
      <Route element={<SectionLayout />}>
        <Route index element={<AgentsListPage />} />
        <Route path="tools" element={<ToolsPage />} />
        <Route path="tools/new" element={<ToolPage />} />
        <Route path="tools/:toolId" element={<ToolPage />} />
        <Route path="mcp-servers" element={<McpServersPage />} />
        <Route path="mcp-servers/:serverId" element={<McpServerPage />} />
        <Route path="providers" element={<ProvidersPage />} />
        <Route path="identities" element={<IdentitiesPage />} />
        <Route path="groups" element={<GroupsPage />} />
        <Route path="groups/:groupId" element={<GroupPage />} />
        <Route path="runs" element={<JobsPage />} />
        <Route path="sandbox" element={<SandboxPage />} />
        <Route path="templates" element={<TemplatesPage />} />
        <Route path="block-templates" element={<BlockTemplatesPage />} />
        <Route path="agent-files" element={<AgentFilesPage />} />
        <Route path="datasets" element={<DatasetsPage />} />
        <Route path="datasets/:datasetId" element={<DatasetPage />} />
        <Route path="datasets/:datasetId/runs/:runId" element={<RunResultsPage />} />
        <Route path="datasets/:datasetId/compare" element={<RunComparisonPage />} />
        <Route path="ab-tests" element={<AbTestsPage />} />
        <Route path="ab-tests/:abTestId" element={<AbTestPage />} />
      </Route>
      <Route path="new" element={<CreateAgentPage />} />
      <Route
        path="templates/:templateId"
        element={
          <Suspense fallback={<Loader m="xl" />}>
            <TemplateEditor />
          </Suspense>
        }
      />
      <Route path=":agentId" element={<AgentWorkspace />} />
    </Routes>
  );
}
