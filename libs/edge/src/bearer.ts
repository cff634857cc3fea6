import { Unauthorized } from '@sa/errors';

/** Extracts the secret of `Authorization: Bearer <token>`; anything else is a 401. */
export function bearerSecret(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^Bearer[ ]+(\S+)\s*$/i.exec(value) : null;
  if (!match) throw new Unauthorized('Send the API token as "Authorization: Bearer <token>"');
  return match[1];
}
