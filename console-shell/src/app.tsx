import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Center,
  consoleApi,
  DesignSystemProvider,
  ErrorNotice,
  Loader,
  Navigate,
  Outlet,
  ProjectContext,
  queryKeys,
  Route,
  Routes,
  useLocation,
  useParams,
  useSessionState,
} from '@engram/console-kit';
import { AppLayout } from './layout/app-layout.js';
import { AccountPage } from './pages/account.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { ForgotPasswordPage, LoginPage, SignUpPage } from './pages/auth.js';
import { NotFoundPage } from './pages/not-found.js';
import { ProjectsPage } from './pages/projects.js';
import { useRemotes } from './remotes/remote-manifest.js';
import { RemoteMount } from './remotes/remote-mount.js';

// Screens most visits never open load on first use, so they stay out of the JavaScript before the login form.
const EnvironmentVariablesPage = lazy(() => import('./pages/environment-variables.js').then((page) => ({ default: page.EnvironmentVariablesPage })));
const InvitePage = lazy(() => import('./pages/invite.js').then((page) => ({ default: page.InvitePage })));
const LettaImportPage = lazy(() => import('./pages/letta-import.js').then((page) => ({ default: page.LettaImportPage })));
const OrganizationSettingsPage = lazy(() => import('./pages/organization-settings.js').then((page) => ({ default: page.OrganizationSettingsPage })));
const MembersPage = lazy(() => import('./pages/members.js').then((page) => ({ default: page.MembersPage })));
const VerifyEmailPage = lazy(() => import('./pages/verify-email.js').then((page) => ({ default: page.VerifyEmailPage })));
const OAuthConsentPage = lazy(() => import('./pages/oauth-consent.js').then((page) => ({ default: page.OAuthConsentPage })));
const OAuthDevicePage = lazy(() => import('./pages/oauth-device.js').then((page) => ({ default: page.OAuthDevicePage })));
const SharedChatPage = lazy(() => import('./pages/shared-chat.js').then((page) => ({ default: page.SharedChatPage })));
const LaunchPage = lazy(() => import('./pages/launch.js').then((page) => ({ default: page.LaunchPage })));

function FullPageLoader() {
  return (
    <Center h="100vh">
      <Loader />
    </Center>
  );
}

/** Screens for signed-in users; anyone else goes to the login page (and comes back after). */
function RequireSession({ children }: { children: ReactNode }) {
  const state = useSessionState();
  const location = useLocation();
  if (state.status === 'loading') return <FullPageLoader />;
  if (state.status === 'error') {
    return (
      <Center h="100vh" p="md">
        <ErrorNotice error={state.error} title="The console could not reach the server" onRetry={() => window.location.reload()} />
      </Center>
    );
  }
  if (state.status === 'anonymous') return <Navigate to="/login" replace state={{ from: `${location.pathname}${location.search}` }} />;
  return children;
}

function AnonymousOnly({ children }: { children: ReactNode }) {
  const state = useSessionState();
  if (state.status === 'loading') return <FullPageLoader />;
  if (state.status === 'signed-in') return <Navigate to="/projects" replace />;
  return children;
}

/** `/projects/:projectSlug/*`: the project every remote below works in. */
function ProjectScope() {
  const { projectSlug = '' } = useParams();
  const project = useQuery({ queryKey: queryKeys.project(projectSlug), queryFn: () => consoleApi.project(projectSlug) });
  if (project.isPending) return <Loader m="xl" />;
  if (project.error) return <ErrorNotice error={project.error} title="This project could not be opened" onRetry={() => void project.refetch()} />;
  return (
    <ProjectContext.Provider value={project.data}>
      <Outlet />
    </ProjectContext.Provider>
  );
}

function ProjectHome() {
  const remotes = useRemotes();
  if (remotes.isPending) return <Loader m="xl" />;
  const first = remotes.data?.[0];
  return first ? <Navigate to={first.route} replace /> : <NotFoundPage message="No console modules are installed." />;
}

/**
 * `/billing`: the billing remote of the most recently used project. Billing is the organization's, but remotes are
 * mounted in a project; this is where the organization's own screens (API keys, members) link to it.
 */
function BillingRedirect() {
  const projects = useQuery({ queryKey: [...queryKeys.allProjects, 'latest'], queryFn: () => consoleApi.projects({ limit: 1, orderBy: 'updatedAt', orderDirection: 'desc' }) });
  if (projects.isPending) return <Loader m="xl" />;
  if (projects.error) return <ErrorNotice error={projects.error} onRetry={() => void projects.refetch()} />;
  const latest = projects.data.projects[0];
  return latest ? <Navigate to={`/projects/${latest.slug}/billing`} replace /> : <Navigate to="/projects" replace />;
}

/** Mounts the remote whose route is the URL's `:area`. */
function RemoteRoute() {
  const { area = '' } = useParams();
  const remotes = useRemotes();
  if (remotes.isPending) return <Loader m="xl" />;
  if (remotes.error) return <ErrorNotice error={remotes.error} title="The list of console modules could not be loaded" onRetry={() => void remotes.refetch()} />;
  const remote = remotes.data.find((candidate) => candidate.route === area);
  if (!remote) return <NotFoundPage />;
  return <RemoteMount remote={remote} />;
}

export function App() {
  const state = useSessionState();
  const user = state.status === 'signed-in' ? state.session.user : undefined;
  useEffect(() => {
    document.documentElement.lang = user?.locale ?? navigator.language ?? 'en';
  }, [user?.locale]);

  return (
    <DesignSystemProvider theme={user?.theme}>
      <Routes>
        <Route path="/login" element={<AnonymousOnly><LoginPage /></AnonymousOnly>} />
        <Route path="/signup" element={<AnonymousOnly><SignUpPage /></AnonymousOnly>} />
        <Route path="/forgot-password" element={<AnonymousOnly><ForgotPasswordPage /></AnonymousOnly>} />
        {/* Signed in or not: the page itself handles both. */}
        <Route
          path="/invites/:inviteCode"
          element={
            <Suspense fallback={<FullPageLoader />}>
              <InvitePage />
            </Suspense>
          }
        />
        {/* Shared chats and launch links: for whoever their access level admits, signed in or not, without the console's chrome. */}
        <Route path="/chat/:chatId" element={<Suspense fallback={<FullPageLoader />}><SharedChatPage /></Suspense>} />
        <Route path="/launch/:launchId" element={<Suspense fallback={<FullPageLoader />}><LaunchPage /></Suspense>} />
        {/* OAuth: an app's request (the provider sends the browser here) and a device's code, on a page of their own. */}
        <Route path="/authorize/:interactionId" element={<RequireSession><Suspense fallback={<FullPageLoader />}><OAuthConsentPage /></Suspense></RequireSession>} />
        <Route path="/device" element={<RequireSession><Suspense fallback={<FullPageLoader />}><OAuthDevicePage /></Suspense></RequireSession>} />
        <Route element={<RequireSession><AppLayout /></RequireSession>}>
          <Route index element={<Navigate to="/projects" replace />} />
          <Route path="projects" element={<ProjectsPage />} />
          <Route path="projects/:projectSlug" element={<ProjectScope />}>
            <Route index element={<ProjectHome />} />
            <Route path=":area/*" element={<RemoteRoute />} />
          </Route>
          <Route path="billing" element={<BillingRedirect />} />
          <Route path="settings/api-keys" element={<ApiKeysPage />} />
          <Route path="settings/members" element={<MembersPage />} />
          <Route path="settings/environment-variables" element={<EnvironmentVariablesPage />} />
          <Route path="settings/organization" element={<OrganizationSettingsPage />} />
          <Route path="settings/import" element={<LettaImportPage />} />
          <Route path="verify-email" element={<VerifyEmailPage />} />
          <Route path="account" element={<AccountPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </DesignSystemProvider>
  );
}
