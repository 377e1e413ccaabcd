import { Button, Link, Stack, Text, Title } from '@engram/console-kit';

export function NotFoundPage({ message = 'There is nothing at this address.' }: { message?: string }) {
  return (
    <Stack align="center" py={80} gap="sm">
      <Title order={1} c="dimmed">
        404
      </Title>
      <Text>{message}</Text>
      <Button component={Link} to="/projects" variant="light">
        Go to projects
      </Button>
    </Stack>
  );
}
