import { randomBytes } from 'node:crypto';

/** Random bytes in a widget session id: 256 bits, 43 base64url characters. */
export const WIDGET_SESSION_BYTES = 32;

/** A fresh widget session id: an unguessable secret held by the visitor's browser. */
export function newWidgetSessionId(): string {
  return randomBytes(WIDGET_SESSION_BYTES).toString('base64url');
}
