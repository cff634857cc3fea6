import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { UpdateWidget } from './types';

const path = (workspaceId: string, botId: string) => ({ params: { path: { workspaceId, botId } } });

/** A bot's widget settings with its install snippet (GET …/bots/{botId}/widget). */
export function useWidget(workspaceId: string, botId: string | null) {
  return useQuery({
    queryKey: keys.widget(workspaceId, botId ?? ''),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/widget', path(workspaceId, botId!)))).data,
    enabled: botId !== null,
  });
}

/** Saves allowed origins or appearance (PATCH); the answer replaces the cached settings. */
export function useUpdateWidget(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateWidget) => (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}/widget', { ...path(workspaceId, botId), body }))).data,
    onSuccess: (data) => queryClient.setQueryData(keys.widget(workspaceId, botId), data),
  });
}

/** A new identity secret (shown once); the settings then say "set" with its date. */
export function useRotateWidgetSecret(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/widget/secret', path(workspaceId, botId)))).data,
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.widget(workspaceId, botId) }),
  });
}
