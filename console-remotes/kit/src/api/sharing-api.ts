import { CONSOLE_API } from './console-api.js';
import { send, sendJson } from './http.js';
import type { WireMessage } from './v1-types.js';

/** Who may open a shared chat or launch a launch link (spec 000 §3). */
export type ShareAccessLevel = 'restricted' | 'organization' | 'logged-in' | 'everyone';

/** Who may see a published agent file (spec 000 §3). */
export type AgentFileAccessLevel = 'organization' | 'logged-in' | 'public' | 'unlisted' | 'none';

export type SharedChatConfiguration = { accessLevel: ShareAccessLevel; agentId: string; isFromLaunchLink: boolean; chatId: string };

export type SharedChat = {
  chatId: string;
  accessLevel: ShareAccessLevel;
  isFromLaunchLink: boolean;
  agentId: string | null;
  agentName: string;
  agentDescription: string | null;
  hasConversation: boolean;
};

export type LaunchLink = { agentTemplateId: string; accessLevel: ShareAccessLevel; launchLink: string; launchId: string };

export type LaunchLinkMetadata = {
  launchId: string;
  name: string;
  description: string | null;
  accessLevel: ShareAccessLevel;
  memoryVariables: Array<{ key: string; defaultValue: string | null; type: string }>;
};

export type PublishedAgentFile = {
  id: string;
  accessLevel: AgentFileAccessLevel;
  agentId: string | null;
  name: string;
  description: string;
  summary: string;
  author: string;
  downloadCount: number;
  publishedAt: string;
  upvotes: number;
  downvotes: number;
  myVote: 'up' | 'down' | null;
};

export type AgentFileListItem = Omit<PublishedAgentFile, 'agentId' | 'description'>;

export type AgentFileDetails = PublishedAgentFile & {
  llmConfig: Record<string, unknown>;
  system: string;
  memory: Array<{ label: string; value: string; limit: number | null; description: string | null }>;
  tools: Array<{ name: string; description: string | null; toolType: string }>;
  toolRules: Array<Record<string, unknown>>;
};

export const SHARE_ACCESS_LEVELS: Array<{ value: ShareAccessLevel; label: string; description: string }> = [
  { value: 'restricted', label: 'Restricted', description: 'Members of the organization who may message its agents' },
  { value: 'organization', label: 'Organization', description: 'Every member of the organization' },
  { value: 'logged-in', label: 'Logged in', description: 'Anyone signed in to this console' },
  { value: 'everyone', label: 'Everyone', description: 'Anyone with the link, signed in or not' },
];

export const AGENT_FILE_ACCESS_LEVELS: Array<{ value: AgentFileAccessLevel; label: string }> = [
  { value: 'public', label: 'Public (listed)' },
  { value: 'unlisted', label: 'Unlisted (by link)' },
  { value: 'logged-in', label: 'Signed-in users' },
  { value: 'organization', label: 'Organization' },
  { value: 'none', label: 'Nobody else' },
];

const path = (suffix: string) => `${CONSOLE_API}${suffix}`;
const id = encodeURIComponent;

/** Shared chats, launch links and published agent files (api/src/routes/console/sharing.ts, agent-file-gallery.ts). */
export const sharingApi = {
  chatConfiguration: (projectId: string, agentId: string) =>
    sendJson<SharedChatConfiguration>(path(`/projects/${id(projectId)}/agents/${id(agentId)}/shared-chat/configuration`)),
  setChatAccessLevel: (projectId: string, agentId: string, accessLevel: ShareAccessLevel) =>
    sendJson<SharedChatConfiguration>(path(`/projects/${id(projectId)}/agents/${id(agentId)}/shared-chat/configuration`), { method: 'PUT', json: { accessLevel } }),

  chat: (chatId: string) => sendJson<SharedChat>(path(`/chat/${id(chatId)}`)),
  chatMessages: (chatId: string) => sendJson<WireMessage[]>(path(`/chat/${id(chatId)}/messages`)),
  /** The answer as an event stream (read it with `readSse`). */
  sendChatMessage: (chatId: string, message: string, signal?: AbortSignal) =>
    send(path(`/chat/${id(chatId)}/messages/stream`), { method: 'POST', json: { message }, headers: { accept: 'text/event-stream' }, signal }),

  launchLink: async (templateId: string): Promise<LaunchLink | null> => {
    const response = await fetch(path(`/agent-templates/${id(templateId)}/launch-link`), { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (response.status === 404) return null;
    if (!response.ok) return sendJson<LaunchLink>(path(`/agent-templates/${id(templateId)}/launch-link`));
    return (await response.json()) as LaunchLink;
  },
  createLaunchLink: (templateId: string, accessLevel: ShareAccessLevel) =>
    sendJson<LaunchLink>(path(`/agent-templates/${id(templateId)}/launch-link`), { method: 'POST', json: { accessLevel } }),
  setLaunchLinkAccessLevel: (templateId: string, accessLevel: ShareAccessLevel) =>
    sendJson<LaunchLink>(path(`/agent-templates/${id(templateId)}/launch-link`), { method: 'PUT', json: { accessLevel } }),
  launchMetadata: (launchId: string) => sendJson<LaunchLinkMetadata>(path(`/launch-link-metadata/${id(launchId)}`)),
  launch: (launchId: string, memoryVariables: Record<string, string>) =>
    sendJson<{ chatId: string; agentId: string | null }>(path(`/launch-links/${id(launchId)}/share-chat`), { method: 'POST', json: { memoryVariables } }),

  agentFiles: (params: { search?: string; sortBy?: 'downloads' | 'votes'; offset?: number }) =>
    sendJson<{ agentFiles: AgentFileListItem[]; hasNextPage: boolean }>(path('/agent-files'), { query: params }),
  agentFileDetails: (agentFileId: string) => sendJson<AgentFileDetails>(path(`/agent-files/${id(agentFileId)}/details`)),
  /** Where the browser downloads the file from (the download is counted). */
  agentFileDownloadUrl: (agentFileId: string) => path(`/agent-files/${id(agentFileId)}/download`),
  publishAgentFile: (body: { agentId: string; name: string; description: string; summary: string; accessLevel: AgentFileAccessLevel }) =>
    sendJson<PublishedAgentFile>(path('/agent-files'), { method: 'POST', json: body }),
  setAgentFileAccessLevel: (agentFileId: string, accessLevel: AgentFileAccessLevel) =>
    sendJson<PublishedAgentFile>(path(`/agent-files/${id(agentFileId)}/access-level`), { method: 'PATCH', json: { accessLevel } }),
  voteAgentFile: (agentFileId: string, vote: 'up' | 'down') =>
    sendJson<PublishedAgentFile>(path(`/agent-files/${id(agentFileId)}/vote`), { method: 'POST', json: { vote } }),
};
