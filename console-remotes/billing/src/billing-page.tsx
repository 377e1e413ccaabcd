import { Alert, Code, PageHeader, SimpleGrid, Stack, Text, useMemberAccess } from '@engram/console-kit';
import { IconInfoCircle, IconLock } from '@tabler/icons-react';
import { AutoTopUpCard } from './auto-top-up.js';
import { CardsCard } from './cards.js';
import { CreditsCard } from './credits.js';
import { HistoryCard } from './history.js';
import { PlanCard } from './plan.js';
import { QuotasCard } from './quotas.js';
import { GiftCodeCard, ReferralCard } from './rewards.js';
import { useBillingSettings } from './shared.js';

/**
 * The organization's billing on one screen: plan, credits and their use, quotas, cards, charges, auto top-up, gift
 * codes and referrals. Billing belongs to the organization, whichever project it is opened from. Members without
 * `manage_billing` see the quotas only, as the API would refuse them the rest. A self-hosted server (billing off) says
 * that nothing is enforced, and what needs a card (plans, buying credits, cards, auto top-up) shows only where Stripe
 * is configured.
 */
export function BillingPage() {
  const access = useMemberAccess();
  const manages = access.can('manage_billing');
  const billing = useBillingSettings();
  const cardPayments = billing?.cardPayments === true;
  return (
    <>
      <PageHeader title="Billing" description="Your organization's plan, credits and usage. 1 credit = $0.001." />
      {billing && !billing.enforced ? (
        <Alert color="blue" variant="light" icon={<IconInfoCircle size={18} />} mb="md" title="Nothing is enforced on this server" data-testid="billing-not-enforced">
          <Text size="sm">
            Billing is off here (<Code>ENGRAM_BILLING=off</Code>): every model step is still metered, so usage and costs show below, but no plan limit,
            monthly allowance or credit balance refuses anything.
          </Text>
        </Alert>
      ) : null}
      {access.known && !manages ? (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} mb="md" data-testid="role-notice">
          Only members who manage billing see the plan, credits and cards. Ask an admin.
        </Alert>
      ) : null}
      <Stack gap="lg">
        {manages ? (
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            <PlanCard cardPayments={cardPayments} />
            <CreditsCard cardPayments={cardPayments} />
          </SimpleGrid>
        ) : null}
        <QuotasCard enforced={billing?.enforced ?? true} />
        {manages ? (
          <>
            {cardPayments ? (
              <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
                <CardsCard />
                <AutoTopUpCard />
              </SimpleGrid>
            ) : null}
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
