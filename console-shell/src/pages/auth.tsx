import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  consoleApi,
  Link,
  PasswordInput,
  queryKeys,
  Text,
  TextInput,
  useLocation,
  useNavigate,
  useSearchParams,
  useValidatedSubmit,
  type EmailDelivery,
  type FormName,
} from '@engram/console-kit';
import { IconCircleCheck } from '@tabler/icons-react';
import { bindFields } from '../layout/form-fields.js';
import { AuthForm, AuthFrame, LinkWithPrompt } from './auth-frame.js';
import { NoMailServer } from './development-code.js';

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

/** A form that signs in when it succeeds: its fields' bindings, its validated submit and the request's progress. */
function useSignInForm<Values extends Record<string, string>>(form: FormName, initialValues: Values, signIn: (values: Values) => Promise<unknown>) {
  const [values, setValues] = useState(initialValues);
  const afterSignIn = useAfterSignIn();
  const request = useMutation({ mutationFn: () => signIn(values), onSuccess: afterSignIn });
  const { errors, onSubmit } = useValidatedSubmit(form, values, () => request.mutate());
  return { field: bindFields(values, setValues, errors), onSubmit, request };
}

export function LoginPage() {
  const { field, onSubmit, request } = useSignInForm('login', { email: '', password: '' }, (values) => consoleApi.login(values));
  return (
    <AuthFrame
      title="Welcome back"
      subtitle={
        <LinkWithPrompt prompt="New to Engram?" to="/signup">
          Create an account
        </LinkWithPrompt>
      }
    >
      <AuthForm onSubmit={onSubmit} mutation={request} failureTitle="Could not log in" submitLabel="Log in" submitSize="md">
        <TextInput label="Email" type="email" autoComplete="email" placeholder="you@example.com" {...field('email')} />
        <PasswordInput label="Password" autoComplete="current-password" {...field('password')} />
        <Anchor component={Link} to="/forgot-password" size="sm" ta="right">
          Forgot your password?
        </Anchor>
      </AuthForm>
    </AuthFrame>
  );
}

/** Sign-up; a referral link (`/signup?referralCode=…`, from the billing screen) brings its code along. */
export function SignUpPage() {
  const [searchParams] = useSearchParams();
  const referralCode = searchParams.get('referralCode')?.trim() || undefined;
  const { field, onSubmit, request } = useSignInForm('signUp', { name: '', email: '', password: '' }, (values) => consoleApi.signUp({ ...values, referralCode }));
  return (
    <AuthFrame
      title="Create your account"
      subtitle={
        <LinkWithPrompt prompt="Already have one?" to="/login">
          Log in
        </LinkWithPrompt>
      }
    >
      <AuthForm
        onSubmit={onSubmit}
        mutation={request}
        failureTitle="Could not create the account"
        submitLabel="Create account"
        submitSize="md"
        intro={
          referralCode ? (
            <Text size="sm" c="dimmed" data-testid="referral-code">
              Signing up with referral code {referralCode}.
            </Text>
          ) : null
        }
      >
        <TextInput label="Name" autoComplete="name" placeholder="Ada Lovelace" {...field('name')} />
        <TextInput label="Email" type="email" autoComplete="email" placeholder="you@example.com" {...field('email')} />
        <PasswordInput label="Password" description="At least 8 characters" autoComplete="new-password" {...field('password')} />
      </AuthForm>
    </AuthFrame>
  );
}

export function ForgotPasswordPage() {
  const [step, setStep] = useState<'email' | 'code' | 'done'>('email');
  const [values, setValues] = useState({ email: '', code: '', password: '' });
  const [delivery, setDelivery] = useState<EmailDelivery>('smtp');
  const start = useMutation({
    mutationFn: () => consoleApi.startPasswordReset({ email: values.email }),
    onSuccess: (started) => {
      setDelivery(started.emailDelivery);
      setStep('code');
    },
  });
  const finish = useMutation({ mutationFn: () => consoleApi.finishPasswordReset(values), onSuccess: () => setStep('done') });
  const { errors, onSubmit } = useValidatedSubmit('passwordReset', values, () => finish.mutate());
  const startSubmit = useValidatedSubmit('passwordResetStart', { email: values.email }, () => start.mutate());
  const field = bindFields(values, setValues, errors);
  const startField = bindFields(values, setValues, startSubmit.errors);
  return (
    <AuthFrame
      title="Reset your password"
      subtitle={
        <LinkWithPrompt prompt="Remembered it?" to="/login">
          Log in
        </LinkWithPrompt>
      }
    >
      {step === 'email' ? (
        <AuthForm onSubmit={startSubmit.onSubmit} mutation={start} submitLabel="Email me a code">
          <TextInput label="Email" type="email" autoComplete="email" {...startField('email')} />
        </AuthForm>
      ) : step === 'code' ? (
        <AuthForm
          onSubmit={onSubmit}
          mutation={finish}
          failureTitle="The password was not changed"
          submitLabel="Set new password"
          intro={
            delivery === 'smtp' ? (
              <Text size="sm" c="dimmed" data-testid="code-delivery">
                If an account exists for {values.email}, a code is on its way.
              </Text>
            ) : (
              // Signed out, this browser may not read the outbox: showing codes to whoever asks would hand out every account.
              <NoMailServer recipient={values.email.trim().toLowerCase()} />
            )
          }
        >
          <TextInput label="Code" {...field('code')} />
          <PasswordInput label="New password" autoComplete="new-password" {...field('password')} />
        </AuthForm>
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
