import { Alert, PageHeader, SimpleGrid, Stack, useMemberAccess } from '@engram/console-kit';
import { IconLock } from '@tabler/icons-react';
import { AutoTopUpCard } from './auto-top-up.js';
import { CardsCard } from './cards.js';
import { CreditsCard } from './credits.js';
import { HistoryCard } from './history.js';
import { PlanCard } from './plan.js';
import { QuotasCard } from './quotas.js';
import { GiftCodeCard, ReferralCard } from './rewards.js';

/**
 * The organization's billing on one screen: plan, credits and their use, quotas, cards, charges, auto top-up, gift
 * codes and referrals. Billing belongs to the organization, whichever project it is opened from. Members without
 * `manage_billing` see the quotas only, as the API would refuse them the rest.
 */
export function BillingPage() {
  const access = useMemberAccess();
  const manages = access.can('manage_billing');
  return (
    <>
      <PageHeader title="Billing" description="Your organization's plan, credits and usage. 1 credit = $0.001." />
      {access.known && !manages ? (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} mb="md" data-testid="role-notice">
          Only members who manage billing see the plan, credits and cards. Ask an admin.
        </Alert>
      ) : null}
      <Stack gap="lg">
        {manages ? (
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            <PlanCard />
            <CreditsCard />
          </SimpleGrid>
        ) : null}
        <QuotasCard />
        {manages ? (
          <>
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
              <CardsCard />
              <AutoTopUpCard />
            </SimpleGrid>
            <HistoryCard />
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
              <GiftCodeCard />
              <ReferralCard />
            </SimpleGrid>
          </>
        ) : null}
      </Stack>
    </>
  );
}
