import { Route, Routes } from '@engram/console-kit';
import { AgentsListPage } from './agents-list.js';
import { CreateAgentPage } from './create-agent.js';
import { AgentWorkspace } from './workspace/workspace.js';

/**
 * The agents remote's one app entry (`agents/app`), mounted by the shell under
 * /projects/:projectSlug/agents/*; the project comes from the kit's ProjectContext.
 */
export default function AgentsApp() {
  return (
    <Routes>
      <Route index element={<AgentsListPage />} />
      <Route path="new" element={<CreateAgentPage />} />
      <Route path=":agentId" element={<AgentWorkspace />} />
    </Routes>
  );
}
