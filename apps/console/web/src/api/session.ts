import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, isUnauthenticated, setCsrfToken, unwrap } from './client';
import { keys } from './keys';
import type { Session } from './types';

/** True from the moment a sign-out is asked for until the next sign-in (see useSignOut). */
let signingOut = false;

export function isSigningOut(): boolean {
  return signingOut;
}

/** The signed-in person, their workspaces and the CSRF token; null when nobody is signed in. */
async function fetchSession(): Promise<Session | null> {
  try {
    const session = await unwrap(api.GET('/session'));
    setCsrfToken(session.csrf_token);
    return session;
  } catch (err) {
    if (isUnauthenticated(err)) {
      setCsrfToken(null);
      return null;
    }
    throw err;
  }
}

export function useSession() {
  return useQuery({ queryKey: keys.session, queryFn: fetchSession, staleTime: 60_000 });
}

/** Stores a session just received (sign-in, accepted invitation) and forgets the previous person's data. */
export function useStoreSession() {
  const queryClient = useQueryClient();
  return (session: Session) => {
    signingOut = false;
    queryClient.removeQueries({ queryKey: ['workspace'] });
    setCsrfToken(session.csrf_token);
    queryClient.setQueryData(keys.session, session);
  };
}

export function useSignIn() {
  const store = useStoreSession();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) => unwrap(api.POST('/session', { body })),
    onSuccess: store,
  });
}

/** Forgets the session and everything of the workspaces (after signing out). */
export function useForgetSession() {
  const queryClient = useQueryClient();
  return () => {
    setCsrfToken(null);
    queryClient.removeQueries({ queryKey: ['workspace'] });
    queryClient.setQueryData(keys.session, null);
  };
}

/*
 * Signing out: the caller leaves the workspace pages first, then forgets the session
 * (useForgetSession). Meanwhile a background refresh may meet the ended session (401);
 * `isSigningOut` tells the layout that this is no expiry to come back from.
 */
function leaving<T>(call: () => Promise<T>): () => Promise<T> {
  return async () => {
    signingOut = true;
    try {
      return await call();
    } catch (err) {
      signingOut = false;
      throw err;
    }
  };
}

export function useSignOut() {
  return useMutation({ mutationFn: leaving(() => unwrap(api.DELETE('/session'))) });
}

export function useSignOutEverywhere() {
  return useMutation({ mutationFn: leaving(() => unwrap(api.POST('/session/sign-out-everywhere'))) });
}
