import { lazy } from 'react';
import { Route, Routes } from '@engram/console-kit';
import { OrganizationsPage } from './organizations.js';
import { SectionLayout } from './section-layout.js';

const OrganizationPage = lazy(() => import('./organization.js').then((module) => ({ default: module.OrganizationPage })));
const UsersPage = lazy(() => import('./platform.js').then((module) => ({ default: module.UsersPage })));
const ModelsPage = lazy(() => import('./catalog.js').then((module) => ({ default: module.ModelsPage })));
const GiftCodesPage = lazy(() => import('./catalog.js').then((module) => ({ default: module.GiftCodesPage })));
const OAuthAppsPage = lazy(() => import('./platform.js').then((module) => ({ default: module.OAuthAppsPage })));
const WhitelistPage = lazy(() => import('./platform.js').then((module) => ({ default: module.WhitelistPage })));
const ContentViolationsPage = lazy(() => import('./platform.js').then((module) => ({ default: module.ContentViolationsPage })));

/** The platform admin remote (`admin/app`), mounted by the shell under /projects/:projectSlug/admin/* for platform admins only. */
export default function AdminApp() {
  return (
    <Routes>
      <Route element={<SectionLayout />}>
        <Route index element={<OrganizationsPage />} />
        <Route path="organizations/:organizationId" element={<OrganizationPage />} />
        <Route path="users" element={<UsersPage />} />
        <Route path="models" element={<ModelsPage />} />
        <Route path="gift-codes" element={<GiftCodesPage />} />
        <Route path="oauth-apps" element={<OAuthAppsPage />} />
        <Route path="whitelist" element={<WhitelistPage />} />
        <Route path="content-violations" element={<ContentViolationsPage />} />
      </Route>
    </Routes>
  );
}
