/**
 * Reads `token` from the URL fragment (links in e-mails: `#token=…`, never sent to a server) and
 * then removes the fragment from the address bar and the history entry.
 */
export function takeFragmentToken(): string | null {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const token = params.get('token');
  if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return token && token.trim() !== '' ? token.trim() : null;
}
