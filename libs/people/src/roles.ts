import type { Role } from '@sa/contracts';

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** True when `role` is `min` or above it (owner > admin > member). */
export function roleAtLeast(role: Role, min: Role): boolean {
  return RANK[role] >= RANK[min];
}

/**
 * Whether a person of role `actor` may give or take `role` (invite as it, change someone to or
 * from it, remove someone holding it): owners any role, admins admin and member, members none.
 */
export function mayManageRole(actor: Role, role: Role): boolean {
  if (actor === 'owner') return true;
  if (actor === 'admin') return role !== 'owner';
  return false;
}

export type MembershipChange = { kind: 'change_role'; from: Role; to: Role; self: boolean } | { kind: 'remove'; from: Role; self: boolean };

/**
 * Why `actor` may not make `change`, or null when allowed. Everyone may leave (remove themselves);
 * otherwise the actor must be allowed to manage both the current and the new role. The last-owner
 * rule needs the count of owners and is checked where it is (PeopleAdmin), under a lock.
 */
export function refusalOf(actor: Role, change: MembershipChange): 'forbidden_role' | null {
  if (change.kind === 'remove') {
    if (change.self) return null;
    return mayManageRole(actor, change.from) ? null : 'forbidden_role';
  }
  return mayManageRole(actor, change.from) && mayManageRole(actor, change.to) ? null : 'forbidden_role';
}

/** An owner who stops being one (removed, demoted) when they are the only owner. */
export function losesLastOwner(change: MembershipChange, ownerCount: number): boolean {
  const stopsBeingOwner = change.from === 'owner' && (change.kind === 'remove' || change.to !== 'owner');
  return stopsBeingOwner && ownerCount <= 1;
}
