import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';
import { useAcceptInvitation, useInvitationPreview } from '../../api/public';
import { TextInput } from '../../components/Fields';
import { ErrorMessage, InfoMessage, Loading } from '../../components/Messages';
import { takeFragmentToken } from '../../lib/fragment';
import { AuthLayout } from '../layout/AuthLayout';
import { NewPasswordField } from '../reset-password/NewPasswordField';
import { InvitationSummary } from './InvitationSummary';
import { ActionButton } from '../../components/ActionButton';

/** `/accept-invitation#token=…`: the link from the invitation e-mail. */
export function AcceptInvitationPage() {
  const [token] = useState(takeFragmentToken);
  const preview = useInvitationPreview(token);
  const accept = useAcceptInvitation();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [displayName, setDisplayName] = useState('');

  const title = 'Accept the invitation';
  if (!token) {
    return (
      <AuthLayout title={title} footer={<Link to="/sign-in">Sign in</Link>}>
        <InfoMessage tone="warning">
          <p>This page needs the link from your invitation e-mail.</p>
        </InfoMessage>
      </AuthLayout>
    );
  }
  if (preview.isPending) return <Loading what="the invitation" />;
  if (preview.isError) {
    return (
      <AuthLayout title={title} footer={<Link to="/sign-in">Sign in</Link>}>
        <ErrorMessage error={preview.error} title="This invitation cannot be used." />
        <p>It may have expired, been cancelled or been accepted already. Ask the person who invited you for a new one.</p>
      </AuthLayout>
    );
  }
  const invitation = preview.data;
  return (
    <AuthLayout title={title} footer={<Link to="/sign-in">Sign in instead</Link>}>
      <InvitationSummary invitation={invitation} />
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          const name = displayName.trim();
          accept.mutate(
            { token, password, ...(name ? { display_name: name } : {}) },
            {
              onSuccess: (session) => {
                const joined = session.workspaces.find((w) => w.name === invitation.workspace_name) ?? session.workspaces[0];
                navigate(joined ? `/w/${encodeURIComponent(joined.id)}/tokens` : '/', { replace: true });
              },
            },
          );
        }}
      >
        <ErrorMessage error={accept.error} />
        {invitation.has_account ? (
          <>
            <p>You already have an account with this e-mail address: confirm with its password.</p>
            <TextInput label="Password" name="password" type="password" autoComplete="current-password" isRequired value={password} onChange={setPassword} />
          </>
        ) : (
          <>
            <p>Choose a password for your new account.</p>
            <NewPasswordField label="Password" value={password} onChange={setPassword} />
            <TextInput label="Display name" name="display_name" autoComplete="name" maxLength={100} value={displayName} onChange={setDisplayName} description="How others in the workspace see you." />
          </>
        )}
        <ActionButton type="submit" className="button button--primary button--block" isPending={accept.isPending}>
          Accept invitation
        </ActionButton>
      </Form>
    </AuthLayout>
  );
}
