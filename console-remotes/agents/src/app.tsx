import { Route, Routes } from '@engram/console-kit';
import { AgentsListPage } from './agents-list.js';
import { CreateAgentPage } from './create-agent.js';
import { McpServerPage } from './mcp/mcp-server-page.js';
import { McpServersPage } from './mcp/mcp-servers-page.js';
import { SectionLayout } from './section-layout.js';
import { ToolPage } from './tools/tool-page.js';
import { ToolsPage } from './tools/tools-page.js';
import { AgentWorkspace } from './workspace/workspace.js';

/**
 * The agents remote's one app entry (`agents/app`), mounted by the shell under
 * /projects/:projectSlug/agents/*; the project comes from the kit's ProjectContext. The agent workspace
 * and the new-agent form take the whole page; the other screens share a row of links between them.
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
      </Route>
      <Route path="new" element={<CreateAgentPage />} />
      <Route path=":agentId" element={<AgentWorkspace />} />
    </Routes>
  );
}
