/**
 * Which redirect URIs a client may register (DCR) or declare (Client ID Metadata Document): the
 * MCP authorization spec's rule, "localhost URLs or HTTPS URLs". `https:` anywhere; `http:` only
 * on a loopback host (127.0.0.1, [::1], localhost), where a native or command-line client listens;
 * a private-use scheme (`com.example.app:/callback`, RFC 8252 section 7.1) for native apps. Never
 * a fragment, credentials, or a scheme that runs code in a browser.
 */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

export function redirectUriRefusal(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return 'a redirect URI must be a URL of at most 2000 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${value.slice(0, 100)} is not an absolute URL`;
  }
  if (url.hash) return 'a redirect URI must not have a fragment';
  if (url.username || url.password) return 'a redirect URI must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname) ? null : 'http redirect URIs are allowed only on a loopback host (127.0.0.1, [::1], localhost); use https';
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme is not allowed`;
  // A private-use scheme of a native app: reverse domain name, with a dot (RFC 8252 7.1).
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/i.test(url.protocol) ? null : 'a custom scheme must be a reverse domain name such as com.example.app';
}

/** The first refusal among a client's redirect URIs, or null when all are allowed. */
export function redirectUrisRefusal(uris: unknown): string | null {
  if (!Array.isArray(uris)) return null; // oidc-provider reports a missing or malformed list itself
  for (const uri of uris) {
    const refusal = redirectUriRefusal(uri);
    if (refusal) return refusal;
  }
  return null;
}
