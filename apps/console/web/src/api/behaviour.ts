import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { UpdateBotBehaviour } from './types';

const path = (workspaceId: string, botId: string) => ({ params: { path: { workspaceId, botId } } });

/** A bot's behaviour (GET …/bots/{botId}/behaviour). */
export function useBehaviour(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: keys.behaviour(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/behaviour', path(workspaceId, botId)))).data,
  });
}

/** Saves the behaviour (PATCH); the answer replaces the cached copy. */
export function useUpdateBehaviour(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateBotBehaviour) => (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}/behaviour', { ...path(workspaceId, botId), body }))).data,
    onSuccess: (data) => queryClient.setQueryData(keys.behaviour(workspaceId, botId), data),
  });
}
