import { AccountActions } from '../layout/AccountActions';
import { AuthLayout } from '../layout/AuthLayout';
import { useSession } from '../../api/session';

/** Signed in, but a member of no workspace (all left or removed). */
export function NoWorkspacePage() {
  const session = useSession();
  return (
    <AuthLayout title="No workspace yet">
      <p>You are not a member of any workspace. Ask a workspace owner or admin to invite you, then follow the link in the e-mail.</p>
      {session.data ? <AccountActions person={session.data.person} /> : null}
    </AuthLayout>
  );
}
