import { Button } from 'react-aria-components';
import { useNavigate } from 'react-router';
import { useSignOut, useSignOutEverywhere } from '../../api/session';
import type { Session } from '../../api/types';
import { ErrorMessage } from '../../components/Messages';

/** Who is signed in, "Sign out" and "Sign out everywhere" (ends every session of the person). */
export function AccountActions({ person }: { person: Session['person'] }) {
  const navigate = useNavigate();
  const signOut = useSignOut();
  const everywhere = useSignOutEverywhere();
  const done = () => navigate('/sign-in', { replace: true });
  return (
    <div className="account">
      <span className="account__who">
        <span className="account__name">{person.display_name || person.email}</span>
        {person.display_name ? <span className="account__email">{person.email}</span> : null}
      </span>
      <Button className="button button--ghost button--small" isPending={signOut.isPending} onPress={() => signOut.mutate(undefined, { onSuccess: done })}>
        Sign out
      </Button>
      <Button className="button button--ghost button--small" isPending={everywhere.isPending} onPress={() => everywhere.mutate(undefined, { onSuccess: done })}>
        Sign out everywhere
      </Button>
      <ErrorMessage error={signOut.error ?? everywhere.error} />
    </div>
  );
}
