import { losesLastOwner, mayManageRole, refusalOf, roleAtLeast } from './roles';

describe('role rules', () => {
  it('orders owner > admin > member', () => {
    expect([roleAtLeast('owner', 'admin'), roleAtLeast('admin', 'admin'), roleAtLeast('member', 'admin'), roleAtLeast('member', 'member')]).toEqual([true, true, false, true]);
  });

  it('owners manage every role, admins admin and member, members none', () => {
    const table = (['owner', 'admin', 'member'] as const).map((actor) => (['owner', 'admin', 'member'] as const).map((role) => mayManageRole(actor, role)));
    expect(table).toEqual([
      [true, true, true],
      [false, true, true],
      [false, false, false],
    ]);
  });

  it('refuses a change unless the actor manages both the current and the new role; anyone may leave', () => {
    expect(refusalOf('admin', { kind: 'change_role', from: 'member', to: 'admin', self: false })).toBeNull();
    expect(refusalOf('admin', { kind: 'change_role', from: 'member', to: 'owner', self: false })).toBe('forbidden_role');
    expect(refusalOf('admin', { kind: 'change_role', from: 'owner', to: 'admin', self: false })).toBe('forbidden_role');
    expect(refusalOf('member', { kind: 'change_role', from: 'member', to: 'member', self: true })).toBe('forbidden_role');
    expect(refusalOf('member', { kind: 'remove', from: 'member', self: true })).toBeNull();
    expect(refusalOf('member', { kind: 'remove', from: 'member', self: false })).toBe('forbidden_role');
    expect(refusalOf('admin', { kind: 'remove', from: 'owner', self: false })).toBe('forbidden_role');
    expect(refusalOf('owner', { kind: 'remove', from: 'owner', self: false })).toBeNull();
  });

  it('the last owner may not stop being one', () => {
    expect(losesLastOwner({ kind: 'change_role', from: 'owner', to: 'admin', self: true }, 1)).toBe(true);
    expect(losesLastOwner({ kind: 'remove', from: 'owner', self: true }, 1)).toBe(true);
    expect(losesLastOwner({ kind: 'remove', from: 'owner', self: false }, 2)).toBe(false);
    expect(losesLastOwner({ kind: 'change_role', from: 'owner', to: 'owner', self: true }, 1)).toBe(false);
    expect(losesLastOwner({ kind: 'remove', from: 'admin', self: false }, 1)).toBe(false);
  });
});
