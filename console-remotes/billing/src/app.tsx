import { Route, Routes } from '@engram/console-kit';
import { BillingPage } from './billing-page.js';

/** The billing remote (`billing/app`), mounted by the shell under /projects/:projectSlug/billing/*. */
export default function BillingApp() {
  return (
    <Routes>
      <Route index element={<BillingPage />} />
    </Routes>
  );
}
