import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useInvite } from '../../api/members';
import type { Role } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SelectInput, TextInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { assignableRoles } from './roles';
import { ActionButton } from '../../components/ActionButton';

/** E-mail and role → "Invite". The link goes only by e-mail. */
export function InviteForm() {
  const { workspace, isOwner } = useCurrentWorkspace();
  const invite = useInvite(workspace.id);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [sentTo, setSentTo] = useState<string | null>(null);
  return (
    <Form
      className="form form--inline"
      onSubmit={(e) => {
        e.preventDefault();
        setSentTo(null);
        invite.mutate(
          { email: email.trim(), role },
          {
            onSuccess: (invitation) => {
              setSentTo(invitation.email);
              setEmail('');
            },
          },
        );
      }}
    >
      <ErrorMessage error={invite.error} title="The invitation was not sent." />
      {sentTo ? <SuccessMessage>An invitation is on its way to {sentTo}.</SuccessMessage> : null}
      <div className="form__row">
        <TextInput label="Email" name="email" type="email" isRequired value={email} onChange={setEmail} />
        <SelectInput label="Role" id="invite-role" value={role} onChange={(v) => setRole(v as Role)} options={assignableRoles(isOwner)} />
        <div className="form__actions form__actions--inline">
          <ActionButton type="submit" className="button button--primary" isPending={invite.isPending}>
            Invite
          </ActionButton>
        </div>
      </div>
    </Form>
  );
}
