/** PostgreSQL NOTIFY channel on which identity changes are announced to every verifier. */
export const IDENTITY_CHANNEL = 'identity_changed';

export type IdentityChange = { kind: 'token'; id: string } | { kind: 'workspace'; id: string };

export function parseIdentityChange(payload: string | undefined): IdentityChange | null {
  try {
    const v = JSON.parse(payload ?? '') as IdentityChange;
    return (v.kind === 'token' || v.kind === 'workspace') && typeof v.id === 'string' ? v : null;
  } catch {
    return null;
  }
}
