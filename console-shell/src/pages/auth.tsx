import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Anchor,
  Box,
  Button,
  consoleApi,
  ErrorNotice,
  Flex,
  Paper,
  PasswordInput,
  queryKeys,
  Stack,
  Text,
  TextInput,
  Title,
  Alert,
  Link,
  useLocation,
  useNavigate,
  useValidatedSubmit,
} from '@engram/console-kit';
import { IconBrain, IconCircleCheck, IconDatabase, IconPlayerPlay, IconTools } from '@tabler/icons-react';
import { Logo } from '../layout/logo.js';

function Feature({ icon, title, text }: { icon: ReactNode; title: string; text: string }) {
  return (
    <Flex gap="md" align="flex-start">
      <Box mt={2} c="white" style={{ opacity: 0.9 }}>
        {icon}
      </Box>
      <Stack gap={2}>
        <Text fw={600} c="white">
          {title}
        </Text>
        <Text size="sm" c="white" style={{ opacity: 0.8 }}>
          {text}
        </Text>
      </Stack>
    </Flex>
  );
}

/** Sign-in screens: a brand panel on wide screens, the form alone on phones. */
export function AuthFrame({ title, subtitle, children }: { title: string; subtitle: ReactNode; children: ReactNode }) {
  return (
    <Flex mih="100vh">
      <Box
        visibleFrom="md"
        p={56}
        style={{
          flex: '0 0 44%',
          background: 'linear-gradient(150deg, var(--mantine-color-engram-8) 0%, var(--mantine-color-engram-6) 55%, var(--mantine-color-grape-6) 100%)',
          display: 'flex',
          flexDirection: 'column',
          justifyContent: 'space-between',
        }}
      >
        <Flex align="center" gap="sm" c="white">
          <IconBrain size={30} />
          <Text fw={750} fz={24} c="white">
            Engram
          </Text>
        </Flex>
        <Stack gap="xl" maw={420}>
          <Title order={2} c="white" fz={34} lh={1.2}>
            Agents that remember, and runs that never get lost.
          </Title>
          <Feature icon={<IconDatabase size={22} />} title="Memory you can see" text="Edit memory blocks and watch the agent update them as it works." />
          <Feature icon={<IconPlayerPlay size={22} />} title="Durable runs" text="Every turn is a workflow: reload the page and the stream picks up where it was." />
          <Feature icon={<IconTools size={22} />} title="Tools with a human in the loop" text="Require approval for any tool and decide inline, in the chat." />
        </Stack>
        <Text size="xs" c="white" style={{ opacity: 0.7 }}>
          Self-hosted · open API · wire-compatible clients
        </Text>
      </Box>
      <Flex style={{ flex: 1 }} align="center" justify="center" p={{ base: 'md', sm: 'xl' }}>
        <Stack w="100%" maw={420} gap="lg">
          <Box hiddenFrom="md">
            <Logo size="lg" />
          </Box>
          <Stack gap={4}>
            <Title order={2}>{title}</Title>
            <Text c="dimmed" size="sm">
              {subtitle}
            </Text>
          </Stack>
          <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="lg">
            {children}
          </Paper>
        </Stack>
      </Flex>
    </Flex>
  );
}

function useAfterSignIn() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  return async () => {
    await queryClient.invalidateQueries({ queryKey: queryKeys.self });
    void navigate(from && from !== '/login' ? from : '/projects', { replace: true });
  };
}

export function LoginPage() {
  const [values, setValues] = useState({ email: '', password: '' });
  const afterSignIn = useAfterSignIn();
  const login = useMutation({ mutationFn: () => consoleApi.login(values), onSuccess: afterSignIn });
  const { errors, onSubmit } = useValidatedSubmit('login', values, () => login.mutate());
  return (
    <AuthFrame
      title="Welcome back"
      subtitle={
        <>
          New to Engram?{' '}
          <Anchor component={Link} to="/signup">
            Create an account
          </Anchor>
        </>
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {login.error ? <ErrorNotice error={login.error} title="Could not log in" /> : null}
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            value={values.email}
            onChange={(event) => setValues({ ...values, email: event.currentTarget.value })}
            error={errors.email}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            value={values.password}
            onChange={(event) => setValues({ ...values, password: event.currentTarget.value })}
            error={errors.password}
          />
          <Anchor component={Link} to="/forgot-password" size="sm" ta="right">
            Forgot your password?
          </Anchor>
          <Button type="submit" loading={login.isPending} fullWidth size="md">
            Log in
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}

export function SignUpPage() {
  const [values, setValues] = useState({ name: '', email: '', password: '' });
  const afterSignIn = useAfterSignIn();
  const signUp = useMutation({ mutationFn: () => consoleApi.signUp(values), onSuccess: afterSignIn });
  const { errors, onSubmit } = useValidatedSubmit('signUp', values, () => signUp.mutate());
  return (
    <AuthFrame
      title="Create your account"
      subtitle={
        <>
          Already have one?{' '}
          <Anchor component={Link} to="/login">
            Log in
          </Anchor>
        </>
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {signUp.error ? <ErrorNotice error={signUp.error} title="Could not create the account" /> : null}
          <TextInput
            label="Name"
            autoComplete="name"
            placeholder="Ada Lovelace"
            value={values.name}
            onChange={(event) => setValues({ ...values, name: event.currentTarget.value })}
            error={errors.name}
          />
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            value={values.email}
            onChange={(event) => setValues({ ...values, email: event.currentTarget.value })}
            error={errors.email}
          />
          <PasswordInput
            label="Password"
            description="At least 8 characters"
            autoComplete="new-password"
            value={values.password}
            onChange={(event) => setValues({ ...values, password: event.currentTarget.value })}
            error={errors.password}
          />
          <Button type="submit" loading={signUp.isPending} fullWidth size="md">
            Create account
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}

export function ForgotPasswordPage() {
  const [step, setStep] = useState<'email' | 'code' | 'done'>('email');
  const [values, setValues] = useState({ email: '', code: '', password: '' });
  const start = useMutation({ mutationFn: () => consoleApi.startPasswordReset({ email: values.email }), onSuccess: () => setStep('code') });
  const finish = useMutation({ mutationFn: () => consoleApi.finishPasswordReset(values), onSuccess: () => setStep('done') });
  const { errors, onSubmit } = useValidatedSubmit('passwordReset', values, () => finish.mutate());
  const startSubmit = useValidatedSubmit('passwordResetStart', { email: values.email }, () => start.mutate());
  return (
    <AuthFrame
      title="Reset your password"
      subtitle={
        <>
          Remembered it?{' '}
          <Anchor component={Link} to="/login">
            Log in
          </Anchor>
        </>
      }
    >
      {step === 'email' ? (
        <form onSubmit={startSubmit.onSubmit} noValidate>
          <Stack>
            {start.error ? <ErrorNotice error={start.error} /> : null}
            <TextInput
              label="Email"
              type="email"
              autoComplete="email"
              value={values.email}
              onChange={(event) => setValues({ ...values, email: event.currentTarget.value })}
              error={startSubmit.errors.email}
            />
            <Button type="submit" loading={start.isPending} fullWidth>
              Email me a code
            </Button>
          </Stack>
        </form>
      ) : step === 'code' ? (
        <form onSubmit={onSubmit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              If an account exists for {values.email}, a code is on its way.
            </Text>
            {finish.error ? <ErrorNotice error={finish.error} title="The password was not changed" /> : null}
            <TextInput label="Code" value={values.code} onChange={(event) => setValues({ ...values, code: event.currentTarget.value })} error={errors.code} />
            <PasswordInput
              label="New password"
              autoComplete="new-password"
              value={values.password}
              onChange={(event) => setValues({ ...values, password: event.currentTarget.value })}
              error={errors.password}
            />
            <Button type="submit" loading={finish.isPending} fullWidth>
              Set new password
            </Button>
          </Stack>
        </form>
      ) : (
        <Alert color="teal" icon={<IconCircleCheck size={18} />} title="Password changed">
          <Anchor component={Link} to="/login">
            Log in with your new password
          </Anchor>
        </Alert>
      )}
    </AuthFrame>
  );
}
