import { useMembers, useRemoveMember } from '../../api/members';
import type { Member } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { DateTime } from '../../components/DateTime';
import { ConfirmButton } from '../../components/Dialogs';
import { ErrorMessage, Loading } from '../../components/Messages';
import { capitalise } from '../../lib/format';
import { RoleSelect } from './RoleSelect';

/** Whether the current person may change or remove this member (owners only touch owners). */
function canTouch(member: Member, isOwner: boolean, canManage: boolean): boolean {
  return canManage && (isOwner || member.role !== 'owner');
}

export function MembersTable() {
  const { workspace, session, canManage, isOwner } = useCurrentWorkspace();
  const members = useMembers(workspace.id);
  const remove = useRemoveMember(workspace.id);
  if (members.isPending) return <Loading what="members" />;
  if (members.isError) return <ErrorMessage error={members.error} />;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Members table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            {canManage ? <th scope="col"><span className="visually-hidden">Actions</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {members.data.map((m) => {
            const you = m.person_id === session.person.id;
            const editable = canTouch(m, isOwner, canManage);
            return (
              <tr key={m.person_id}>
                <th scope="row" id={`member-${m.person_id}`} className="table__name">
                  {m.display_name || <span className="muted">—</span>}
                  {you ? <span className="tag tag--you">you</span> : null}
                </th>
                <td>{m.email}</td>
                <td>{editable ? <RoleSelect member={m} /> : capitalise(m.role)}</td>
                <td>
                  <DateTime value={m.joined_at} />
                </td>
                {canManage ? (
                  <td className="table__actions">
                    {editable ? (
                      <ConfirmButton
                        trigger={you ? 'Leave' : 'Remove'}
                        title={you ? `Leave ${workspace.name}?` : `Remove ${m.email}?`}
                        describedBy={`member-${m.person_id}`}
                        onConfirm={() => remove.mutateAsync(m.person_id)}
                      >
                        <p>{you ? 'You lose access to this workspace until someone invites you again.' : 'They lose access to this workspace at once. Their API tokens stay until revoked.'}</p>
                      </ConfirmButton>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
