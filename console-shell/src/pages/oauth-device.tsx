import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Center, ErrorNotice, Paper, Stack, Text, TextInput, Title, useSearchParams } from '@engram/console-kit';
import { IconCircleCheck, IconCircleX } from '@tabler/icons-react';
import { AuthorizationRequestCard, oauthApi, type AuthorizationAnswer } from './oauth-request.js';

/**
 * `/device`: where a user connects a device (a TV, a CLI) that shows a code. The device's
 * verification URI leads here, with the code filled in when the device gave the complete URI.
 */
export function OAuthDevicePage() {
  const [searchParams] = useSearchParams();
  const [userCode, setUserCode] = useState(searchParams.get('user_code') ?? '');
  const lookup = useMutation({ mutationFn: (code: string) => oauthApi.deviceRequest(code) });
  const answer = useMutation({ mutationFn: (decision: AuthorizationAnswer) => oauthApi.answerDevice(userCode, decision).then(() => decision) });

  if (answer.data) {
    return (
      <Center mih="100vh" p="md">
        <Alert
          maw={480}
          color={answer.data.approve ? 'green' : 'gray'}
          icon={answer.data.approve ? <IconCircleCheck /> : <IconCircleX />}
          title={answer.data.approve ? 'Device connected' : 'Device denied'}
          data-testid="oauth-device-done"
        >
          {answer.data.approve ? 'You can return to your device; it signs in on its own.' : 'The device was not given access.'}
        </Alert>
      </Center>
    );
  }
  return (
    <Center mih="100vh" p="md">
      <Stack w="100%" maw={480}>
        {lookup.data ? (
          <>
            {answer.error ? <ErrorNotice error={answer.error} title="Your answer was not recorded" /> : null}
            <AuthorizationRequestCard request={lookup.data} busy={answer.isPending} onAnswer={(decision) => answer.mutate(decision)} />
          </>
        ) : (
          <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="lg">
            <form
              onSubmit={(event) => {
                event.preventDefault();
                lookup.mutate(userCode);
              }}
            >
              <Stack>
                <Title order={3}>Connect a device</Title>
                <Text size="sm" c="dimmed">
                  Enter the code your device shows.
                </Text>
                <TextInput
                  label="Code"
                  placeholder="BCDF-GHJK"
                  autoComplete="off"
                  value={userCode}
                  onChange={(event) => setUserCode(event.currentTarget.value)}
                  error={lookup.error ? lookup.error.message : undefined}
                  data-autofocus
                />
                <Button type="submit" loading={lookup.isPending} disabled={!userCode.trim()}>
                  Continue
                </Button>
              </Stack>
            </form>
          </Paper>
        )}
      </Stack>
    </Center>
  );
}
