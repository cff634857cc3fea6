let taken: { path: string; token: string | null } | null = null;

/**
 * Reads `token` from the URL fragment (links in e-mails: `#token=…`, never sent to a server) and
 * removes the fragment from the address bar and the history entry. Asked again on the same page
 * (React may run an initialiser twice), it answers the token it took.
 */
export function takeFragmentToken(): string | null {
  const path = window.location.pathname;
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const raw = params.get('token');
  if (raw === null && taken?.path === path) return taken.token;
  const token = raw && raw.trim() !== '' ? raw.trim() : null;
  taken = { path, token };
  if (window.location.hash) window.history.replaceState(window.history.state, '', path + window.location.search);
  return token;
}
