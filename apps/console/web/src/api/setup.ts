import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { ApiError } from './errors';
import { keys } from './keys';
import { useStoreSession } from './session';
import type { paths } from './schema';

export type SetupBody = paths['/setup']['post']['requestBody']['content']['application/json'];
export type TryAnswer = paths['/workspaces/{workspaceId}/bots/{botId}/try']['post']['responses'][200]['content']['application/json']['data'];

/** Whether the installation still waits for its first owner: true, or false once it is set up (410 `setup_done`). */
export function useSetupNeeded() {
  return useQuery({
    queryKey: keys.setup,
    queryFn: async () => {
      try {
        return (await unwrap(api.GET('/setup'))).needed;
      } catch (err) {
        if (err instanceof ApiError && err.status === 410) return false;
        throw err;
      }
    },
    staleTime: 60_000,
    retry: false,
  });
}

/** Creates the first workspace and its owner, who is signed in. */
export function useCompleteSetup() {
  const store = useStoreSession();
  return useMutation({
    mutationFn: (body: SetupBody) => unwrap(api.POST('/setup', { body })),
    onSuccess: store,
  });
}

/** Asks a bot one question from the console (channel `console`); the whole answer. */
export function useTryBot(workspaceId: string, botId: string) {
  return useMutation({
    mutationFn: async (body: { message: string; session_id?: string }) =>
      (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/try', { params: { path: { workspaceId, botId } }, body }))).data,
  });
}
