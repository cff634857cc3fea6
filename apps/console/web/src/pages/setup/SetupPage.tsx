import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';
import { useCompleteSetup, useSetupNeeded } from '../../api/setup';
import { ActionButton } from '../../components/ActionButton';
import { TextInput } from '../../components/Fields';
import { ErrorMessage, InfoMessage, Loading } from '../../components/Messages';
import { AuthLayout } from '../layout/AuthLayout';
import { NewPasswordField } from '../reset-password/NewPasswordField';

/**
 * First-run setup (`/setup`): on an installation nobody has set up, the holder of the setup code
 * (printed by `npm start`, or in the console app's log) creates the first workspace and its owner,
 * and is signed in and taken to the getting-started guide. Once done, the page is gone for good.
 */
export function SetupPage() {
  const needed = useSetupNeeded();
  const complete = useCompleteSetup();
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const [workspaceName, setWorkspaceName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  if (needed.isPending) return <Loading what="the setup" />;
  if (needed.isError) return <ErrorMessage error={needed.error} />;
  if (!needed.data && !complete.isSuccess) {
    return (
      <AuthLayout title="Setup is closed" footer={<Link to="/sign-in">Sign in</Link>}>
        <InfoMessage>
          <p>This installation is already set up. Its setup page and setup code no longer work: sign in, or ask an owner of a workspace to invite you.</p>
        </InfoMessage>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title="Set up" wide>
      <p>
        Welcome. Create the first workspace and its owner account. You need the <strong>setup code</strong> that <code>npm start</code> printed next to the console address (or the console
        app's log line "First-run setup"). It works once.
      </p>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          complete.mutate(
            { code: code.trim(), workspace_name: workspaceName.trim(), display_name: displayName.trim(), email: email.trim(), password },
            { onSuccess: (session) => navigate(`/w/${encodeURIComponent(session.workspaces[0]?.id ?? '')}/get-started`, { replace: true }) },
          );
        }}
      >
        <ErrorMessage error={complete.error} />
        <TextInput label="Setup code" name="setup-code" autoComplete="off" isRequired maxLength={200} value={code} onChange={setCode} autoFocus description="For example K7QM-3XPA-…; case and hyphens do not matter." />
        <TextInput label="Workspace name" name="workspace-name" autoComplete="organization" isRequired maxLength={100} value={workspaceName} onChange={setWorkspaceName} description="Your company or team; you can rename it later." />
        <TextInput label="Your name" name="name" autoComplete="name" isRequired maxLength={100} value={displayName} onChange={setDisplayName} />
        <TextInput label="Email" name="email" type="email" autoComplete="username" isRequired maxLength={320} value={email} onChange={setEmail} description="You sign in with it." />
        <NewPasswordField label="Password" value={password} onChange={setPassword} />
        <ActionButton type="submit" className="button button--primary button--block" isPending={complete.isPending}>
          Set up
        </ActionButton>
      </Form>
    </AuthLayout>
  );
}
