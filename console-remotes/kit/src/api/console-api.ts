import type {
  ApiKey,
  CreatedApiKey,
  Member,
  Organization,
  OrganizationSummary,
  Page,
  PageParams,
  Project,
  PublicUser,
} from './console-types.js';
import { send, sendJson } from './http.js';

/** The console API base (spec 000 "api base"); same origin, so the session cookie just works. */
export const CONSOLE_API = '/api';

const path = (suffix: string) => `${CONSOLE_API}${suffix}`;

/** Thin functions over `/api`; each maps to one route of api/src/routes/console/. */
export const consoleApi = {
  signUp: (body: { name: string; email: string; password: string }) => send(path('/user/new'), { method: 'POST', json: body }),
  login: (body: { email: string; password: string }) => send(path('/user/login'), { method: 'POST', json: body }),
  logout: () => send(path('/user/logout'), { method: 'POST' }),
  startPasswordReset: (body: { email: string }) => send(path('/user/forgot-password/start'), { method: 'POST', json: body }),
  finishPasswordReset: (body: { email: string; password: string; code: string }) =>
    send(path('/user/forgot-password/update'), { method: 'POST', json: body }),

  self: () => sendJson<PublicUser>(path('/user/self')),
  updateSelf: (body: { name?: string; theme?: string; locale?: string }) => sendJson<PublicUser>(path('/user/self'), { method: 'PUT', json: body }),
  organizations: () => sendJson<{ organizations: OrganizationSummary[] }>(path('/user/self/organizations')),
  setActiveOrganization: (activeOrganizationId: string) =>
    send(path('/user/self/active-organization'), { method: 'PUT', json: { activeOrganizationId } }),
  createOrganization: (body: { name: string }) => sendJson<OrganizationSummary>(path('/organizations'), { method: 'POST', json: body }),
  organization: () => sendJson<Organization>(path('/organizations/self')),
  members: (params: PageParams = {}) => sendJson<Page<'members', Member>>(path('/organizations/self/members'), { query: params }),

  projects: (params: PageParams & { orderBy?: 'name' | 'createdAt' | 'updatedAt'; orderDirection?: 'asc' | 'desc' } = {}) =>
    sendJson<Page<'projects', Project>>(path('/projects'), { query: params }),
  project: (slug: string) => sendJson<Project>(path(`/projects/${encodeURIComponent(slug)}`), { query: { lookupBy: 'slug' } }),
  createProject: (body: { name: string }) => sendJson<Project>(path('/projects'), { method: 'POST', json: body }),
  favoriteProject: (projectId: string, isFavorited: boolean) =>
    sendJson<Project>(path(`/projects/${encodeURIComponent(projectId)}/favorite`), { method: 'POST', json: { isFavorited } }),
  deleteProject: (projectId: string) => send(path(`/projects/${encodeURIComponent(projectId)}`), { method: 'DELETE' }),

  apiKeys: (params: PageParams = {}) => sendJson<Page<'apiKeys', ApiKey>>(path('/api-keys'), { query: params }),
  createApiKey: (body: { name: string }) => sendJson<CreatedApiKey>(path('/api-keys'), { method: 'POST', json: body }),
  deleteApiKey: (apiKeyId: string) => send(path(`/api-keys/${encodeURIComponent(apiKeyId)}`), { method: 'DELETE' }),
};
