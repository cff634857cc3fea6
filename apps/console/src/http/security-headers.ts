/** The console's Content-Security-Policy: only its own scripts, styles and API; no frames, no plugins. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Headers on every console response: the API's, the web application's, errors and 404s. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Whether a path is the JSON API's (answered with JSON, never the web application). */
export const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');
