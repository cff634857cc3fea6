/**
 * The form of a request's path that access logs write. Query strings are dropped (they can carry
 * visitor text, reset and invitation tokens), and so is every path segment that is a bearer secret
 * of someone: a widget session id (`/v1/conversations/<sid>`, the console's
 * `/conversations/<sid>` and `/handoffs/<sid>/…`), an invitation token (`/api/invitations/<token>`)
 * and an OAuth interaction id (`/oauth/consent/<uid>`, `/oauth/authorize/<uid>`,
 * `/api/oauth/interactions/<uid>`). The segment is named by the word before it, so an unmatched or
 * wildcard route (the console's web pages, 404s) is covered as well as a matched one.
 */
const SECRET_AFTER = ['conversations', 'handoffs', 'invitations', 'interactions', 'consent', 'authorize'];
const SECRET_SEGMENT = new RegExp(`/(${SECRET_AFTER.join('|')})/[^/]+`, 'gi');

export const REDACTED_SEGMENT = '[redacted]';

export function loggedPath(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path.replace(SECRET_SEGMENT, (_m, word: string) => `/${word}/${REDACTED_SEGMENT}`);
}
