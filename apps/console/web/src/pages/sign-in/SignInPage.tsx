import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { useSession, useSignIn } from '../../api/session';
import { useSetupNeeded } from '../../api/setup';
import { TextInput } from '../../components/Fields';
import { ErrorMessage, Loading } from '../../components/Messages';
import { AuthLayout } from '../layout/AuthLayout';
import { ActionButton } from '../../components/ActionButton';

/** Only a path of this console (`/w/…`), never another site. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

export function SignInPage() {
  const session = useSession();
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const next = safeNext(params.get('next'));

  const setup = useSetupNeeded();
  if (session.isPending || setup.isPending) return <Loading what="the console" />;
  if (session.data && !signIn.isPending && !signIn.isSuccess) return <Navigate to={next} replace />;
  // Nobody can sign in before the first owner exists: the setup comes first.
  if (setup.data) return <Navigate to="/setup" replace />;

  return (
    <AuthLayout title="Sign in to the console" footer={<Link to="/forgot-password">Forgot your password?</Link>}>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          signIn.mutate({ email, password }, { onSuccess: () => navigate(next, { replace: true }) });
        }}
      >
        <ErrorMessage error={signIn.error} />
        <TextInput label="Email" name="email" type="email" autoComplete="username" isRequired value={email} onChange={setEmail} autoFocus />
        <TextInput label="Password" name="password" type="password" autoComplete="current-password" isRequired value={password} onChange={setPassword} />
        <ActionButton type="submit" className="button button--primary button--block" isPending={signIn.isPending}>
          Sign in
        </ActionButton>
      </Form>
    </AuthLayout>
  );
}
