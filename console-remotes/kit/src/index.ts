/**
 * @engram/console-kit: shared by the console shell and every remote as a Module Federation
 * singleton (one copy per page): the API client, the session, the design system.
 */
export { ApiError, errorFromResponse, errorMessage } from './api/errors.js';
export { queryString, send, sendJson, type RequestOptions } from './api/http.js';
export { readSse, type SseEvent } from './api/sse.js';
export { CONSOLE_API, consoleApi } from './api/console-api.js';
export { AGENT_FILE_ACCESS_LEVELS, SHARE_ACCESS_LEVELS, sharingApi } from './api/sharing-api.js';
export type * from './api/sharing-api.js';
export type * from './api/console-types.js';
export { ASSIGNABLE_PERMISSIONS, PERMISSION_GROUPS, ROLE_DESCRIPTIONS, ROLES, type Permission, type Role } from './api/roles.js';
export { createV1Client, V1_API, type SendMessagesBody, type V1Client } from './api/v1-api.js';
export { CONSOLE_REQUEST_HEADER, v1AuthHeaders } from './api/v1-auth.js';
export type * from './api/v1-types.js';
export { queryKeys } from './session/query-keys.js';
export { SessionProvider, useSession, useSessionState, useV1, type Session, type SessionState } from './session/session-context.js';
export { ProjectContext, useProject } from './session/project-context.js';
export { useMemberAccess, type MemberAccess } from './session/member-access.js';
export { useValidatedSubmit, validateForm, type FormName } from './validate.js';
export * from './router.js';
export * from './ui/index.js';
