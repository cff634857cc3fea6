import { Button, Dialog, DialogTrigger, Heading, Popover } from 'react-aria-components';
import { useNavigate } from 'react-router';
import { useForgetSession, useSignOut, useSignOutEverywhere } from '../../api/session';
import type { Session } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { ErrorMessage } from '../../components/Messages';

/**
 * Who is signed in, "Sign out", and behind "Sessions" the "Sign out everywhere" that ends every
 * session of the person (kept out of sight until asked for, so that "Sign out" is the only button
 * of that name on the page).
 */
export function AccountActions({ person }: { person: Session['person'] }) {
  const navigate = useNavigate();
  const signOut = useSignOut();
  const everywhere = useSignOutEverywhere();
  const forget = useForgetSession();
  // To the sign-in page, then forget: the workspace pages never see a missing session.
  const done = () => {
    navigate('/sign-in', { replace: true });
    forget();
  };
  return (
    <div className="account">
      <span className="account__who">
        <span className="account__name">{person.display_name || person.email}</span>
        {person.display_name ? <span className="account__email">{person.email}</span> : null}
      </span>
      <ActionButton className="button button--ghost button--small" isPending={signOut.isPending} onPress={() => signOut.mutateAsync().then(done, () => undefined)}>
        Sign out
      </ActionButton>
      <DialogTrigger>
        <Button className="button button--ghost button--small">Sessions</Button>
        <Popover className="popover" placement="bottom end">
          <Dialog className="dialog dialog--popover">
            <Heading slot="title" className="dialog__title">
              Your sessions
            </Heading>
            <p>Signed in on another computer, or lost one? End every session of yours, including this one.</p>
            <ErrorMessage error={everywhere.error} />
            <ActionButton className="button button--danger" isPending={everywhere.isPending} onPress={() => everywhere.mutateAsync().then(done, () => undefined)}>
              Sign out everywhere
            </ActionButton>
          </Dialog>
        </Popover>
      </DialogTrigger>
      <ErrorMessage error={signOut.error} />
    </div>
  );
}
