import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { CreateBotAction, TestBotAction, UpdateBotAction, UpdateBotActionSettings } from './types';

const botPath = (workspaceId: string, botId: string) => ({ params: { path: { workspaceId, botId } } });
const actionPath = (workspaceId: string, botId: string, actionId: string) => ({ params: { path: { workspaceId, botId, actionId } } });

/** A bot's actions (GET …/bots/{botId}/actions), oldest first. Header values never come back: `{name, has_value}` only. */
export function useBotActions(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: keys.actions(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/actions', botPath(workspaceId, botId)))).data,
  });
}

function useRefreshActions(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: keys.actions(workspaceId, botId), exact: true });
}

export function useCreateBotAction(workspaceId: string, botId: string) {
  const refresh = useRefreshActions(workspaceId, botId);
  return useMutation({
    mutationFn: async (body: CreateBotAction) => (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/actions', { ...botPath(workspaceId, botId), body }))).data,
    onSettled: refresh,
  });
}

/** Changes an action: `headers` replaces the list, an entry without `value` keeps the stored one. */
export function useUpdateBotAction(workspaceId: string, botId: string) {
  const refresh = useRefreshActions(workspaceId, botId);
  return useMutation({
    mutationFn: async ({ actionId, body }: { actionId: string; body: UpdateBotAction }) =>
      (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}/actions/{actionId}', { ...actionPath(workspaceId, botId, actionId), body }))).data,
    onSettled: refresh,
  });
}

export function useDeleteBotAction(workspaceId: string, botId: string) {
  const refresh = useRefreshActions(workspaceId, botId);
  return useMutation({
    mutationFn: (actionId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/bots/{botId}/actions/{actionId}', actionPath(workspaceId, botId, actionId))),
    onSettled: refresh,
  });
}

/** One call with sample input: a refusal, a timeout or an HTTP error is a result (`ok: false`), not an error. */
export function useTestBotAction(workspaceId: string, botId: string) {
  return useMutation({
    mutationFn: async ({ actionId, body }: { actionId: string; body: TestBotAction }) =>
      (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/actions/{actionId}/test', { ...actionPath(workspaceId, botId, actionId), body }))).data,
  });
}

/** The built-in actions (booking, lead, hand-off) and the calls per turn. */
export function useActionSettings(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: keys.actionSettings(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/action-settings', botPath(workspaceId, botId)))).data,
  });
}

/** Saves the action settings (PATCH); the answer replaces the cached copy. */
export function useUpdateActionSettings(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateBotActionSettings) => (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}/action-settings', { ...botPath(workspaceId, botId), body }))).data,
    onSuccess: (data) => queryClient.setQueryData(keys.actionSettings(workspaceId, botId), data),
  });
}
