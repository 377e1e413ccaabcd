import { useMutation, useQuery } from '@tanstack/react-query';
import { Center, ErrorNotice, Loader, Stack, useParams } from '@engram/console-kit';
import { AuthorizationRequestCard, oauthApi, type AuthorizationAnswer } from './oauth-request.js';

/**
 * `/authorize/:interactionId`: where the OAuth provider sends a signed-in user to decide on an app's
 * request. The answer goes to the API, and the browser then returns to the provider, which redirects
 * to the app (with a code, or with access_denied).
 */
export function OAuthConsentPage() {
  const { interactionId = '' } = useParams();
  const request = useQuery({ queryKey: ['oauth-authorization', interactionId], queryFn: () => oauthApi.authorizationRequest(interactionId), retry: false });
  const answer = useMutation({
    mutationFn: (decision: AuthorizationAnswer) => oauthApi.answerAuthorization(interactionId, decision),
    // A navigation, not a fetch: the provider answers with a redirect to the app's own site.
    onSuccess: ({ redirectTo }) => window.location.assign(redirectTo),
  });
  return (
    <Center mih="100vh" p="md">
      <Stack w="100%" maw={480}>
        {request.isPending ? <Loader m="xl" /> : null}
        {request.error ? <ErrorNotice error={request.error} title="This authorization request cannot be answered (it may have expired)" /> : null}
        {answer.error ? <ErrorNotice error={answer.error} title="Your answer was not recorded" /> : null}
        {request.data ? <AuthorizationRequestCard request={request.data} busy={answer.isPending || answer.isSuccess} onAnswer={(decision) => answer.mutate(decision)} /> : null}
      </Stack>
    </Center>
  );
}
