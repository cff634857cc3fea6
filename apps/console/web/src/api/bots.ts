import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { CreateBot, UpdateBot } from './types';

/** POST …/bots: the rules of POST /v1/bots (402, 403, 409 with suggested_name). */
export function useCreateBot(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateBot) => (await unwrap(api.POST('/workspaces/{workspaceId}/bots', { params: { path: { workspaceId } }, body }))).data,
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.bots(workspaceId) }),
  });
}

/** PATCH …/bots/{botId}: name or default reply language. */
export function useUpdateBot(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateBot) => (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}', { params: { path: { workspaceId, botId } }, body }))).data,
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.bots(workspaceId) }),
  });
}
