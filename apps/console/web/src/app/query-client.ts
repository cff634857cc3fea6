import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/errors';
import { keys } from '../api/keys';

/**
 * Server state. A 401 anywhere means the session ended (expired, signed out elsewhere): forget it,
 * and the workspace pages send the person to the sign-in page.
 */
export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (err, query) => onError(err, query.queryKey[0] === 'workspace') }),
    mutationCache: new MutationCache({ onError: (err) => onError(err, queryClient.getQueryData(keys.session) != null) }),
    defaultOptions: {
      queries: {
        retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
        refetchOnWindowFocus: true,
      },
      mutations: { retry: false },
    },
  });
  function onError(err: unknown, hadSession: boolean) {
    if (hadSession && err instanceof ApiError && err.status === 401) {
      queryClient.removeQueries({ queryKey: ['workspace'] });
      queryClient.setQueryData(keys.session, null);
    }
  }
  return queryClient;
}
