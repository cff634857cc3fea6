/** Token scopes of spec part 5, rule 3. */
export const SCOPES = [
  'bots:read',
  'bots:write',
  'kb:read',
  'kb:write',
  'chat:invoke',
  'conversations:read',
  'leads:read',
  'analytics:read',
  'bookings:read',
  'bookings:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
