import { useQuery } from '@tanstack/react-query';
import { useOrganizationId } from '../templates/template-queries.js';
import { abTestsApi } from './ab-tests-api.js';

/** Query keys of A/B tests, per organization: a switch of organization never shows another one's tests. */
export const abTestKeys = {
  all: (organizationId: string) => ['console', 'ab-tests', organizationId] as const,
  list: (organizationId: string, filter: object) => [...abTestKeys.all(organizationId), 'list', filter] as const,
  abTest: (organizationId: string, abTestId: string) => [...abTestKeys.all(organizationId), 'ab-test', abTestId] as const,
  arms: (organizationId: string, abTestId: string) => [...abTestKeys.abTest(organizationId, abTestId), 'arms'] as const,
  results: (organizationId: string, abTestId: string) => [...abTestKeys.abTest(organizationId, abTestId), 'results'] as const,
};

/** How often a running test's results are read again while its page is open. */
const LIVE_RESULTS_INTERVAL_MS = 3000;

export function useAbTest(abTestId: string) {
  const organizationId = useOrganizationId();
  return useQuery({ queryKey: abTestKeys.abTest(organizationId, abTestId), queryFn: () => abTestsApi.get(abTestId) });
}

export function useAbTestArms(abTestId: string) {
  const organizationId = useOrganizationId();
  return useQuery({ queryKey: abTestKeys.arms(organizationId, abTestId), queryFn: async () => (await abTestsApi.arms(abTestId)).templates });
}

/** The arms' results, live while the test splits traffic: users and feedback arrive from outside the console. */
export function useAbTestResults(abTestId: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: abTestKeys.results(organizationId, abTestId),
    queryFn: () => abTestsApi.results(abTestId),
    refetchInterval: (query) => (query.state.data?.abTest.status === 'stopped' ? false : LIVE_RESULTS_INTERVAL_MS),
  });
}
