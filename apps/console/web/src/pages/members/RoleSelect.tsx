import { useChangeRole } from '../../api/members';
import type { Member, Role } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { assignableRoles } from './roles';

/**
 * Changes a member's role when another is chosen. The column header "Role" is its visible label;
 * its name ("Access of …") avoids the word role so that the invite form's "Role" stays unique.
 */
export function RoleSelect({ member }: { member: Member }) {
  const { workspace, isOwner } = useCurrentWorkspace();
  const change = useChangeRole(workspace.id);
  return (
    <div className="stack-xs">
      <SelectInput
        label={`Access of ${member.email}`}
        hideLabel
        id={`role-${member.person_id}`}
        value={change.isPending && change.variables ? change.variables.role : member.role}
        isDisabled={change.isPending}
        onChange={(role) => change.mutate({ personId: member.person_id, role: role as Role })}
        options={assignableRoles(isOwner)}
      />
      <ErrorMessage error={change.error} />
    </div>
  );
}
