import { useCancelInvitation, useInvitations } from '../../api/members';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { DateTime } from '../../components/DateTime';
import { ConfirmButton } from '../../components/Dialogs';
import { ErrorMessage, Loading } from '../../components/Messages';
import { capitalise } from '../../lib/format';

export function PendingInvitations() {
  const { workspace, canManage, isOwner } = useCurrentWorkspace();
  const invitations = useInvitations(workspace.id);
  const cancel = useCancelInvitation(workspace.id);
  if (invitations.isPending) return <Loading what="invitations" />;
  if (invitations.isError) return <ErrorMessage error={invitations.error} />;
  if (invitations.data.length === 0) return <p className="empty">No pending invitations.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Pending invitations table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Invited by</th>
            <th scope="col">Sent</th>
            <th scope="col">Expires</th>
            {canManage ? <th scope="col"><span className="visually-hidden">Actions</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {invitations.data.map((i) => (
            <tr key={i.id}>
              <th scope="row" id={`invitation-${i.id}`} className="table__name">
                {i.email}
              </th>
              <td>{capitalise(i.role)}</td>
              <td>{i.invited_by ?? <span className="muted">—</span>}</td>
              <td>
                <DateTime value={i.created_at} />
              </td>
              <td>
                <DateTime value={i.expires_at} />
              </td>
              {canManage ? (
                <td className="table__actions">
                  {isOwner || i.role !== 'owner' ? (
                    <ConfirmButton trigger="Cancel invitation" dismiss="Keep it" title={`Cancel the invitation of ${i.email}?`} describedBy={`invitation-${i.id}`} onConfirm={() => cancel.mutateAsync(i.id)}>
                      <p>The link in the e-mail stops working.</p>
                    </ConfirmButton>
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
