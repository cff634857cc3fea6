import type { Role } from '../../api/types';
import { capitalise } from '../../lib/format';

const ROLES: Role[] = ['owner', 'admin', 'member'];

/** The roles the current person may give: owners any, admins admin or member. */
export function assignableRoles(isOwner: boolean): { value: Role; label: string }[] {
  return ROLES.filter((r) => isOwner || r !== 'owner').map((r) => ({ value: r, label: capitalise(r) }));
}
