import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { CreateWebhook } from './types';

/** Deliveries change on their own (retries, receivers answering): lists refresh while shown. */
const REFRESH_MS = 3000;

export function useWebhooks(workspaceId: string) {
  return useQuery({
    queryKey: keys.webhooks(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/webhooks', { params: { path: { workspaceId } } }))).data,
    refetchInterval: REFRESH_MS,
  });
}

export function useDeliveries(workspaceId: string, webhookId: string, limit = 50) {
  return useQuery({
    queryKey: [...keys.deliveries(workspaceId, webhookId), limit],
    queryFn: async () =>
      (await unwrap(api.GET('/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries', { params: { path: { workspaceId, webhookId }, query: { limit } } }))).data,
    refetchInterval: REFRESH_MS,
  });
}

function useRefreshWebhooks(workspaceId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: keys.webhooks(workspaceId) });
}

export function useCreateWebhook(workspaceId: string) {
  const refresh = useRefreshWebhooks(workspaceId);
  return useMutation({
    mutationFn: (body: CreateWebhook) => unwrap(api.POST('/workspaces/{workspaceId}/webhooks', { params: { path: { workspaceId } }, body })),
    onSettled: refresh,
  });
}

export function useDeleteWebhook(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (webhookId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/webhooks/{webhookId}', { params: { path: { workspaceId, webhookId } } })),
    onSuccess: (_data, webhookId) => queryClient.removeQueries({ queryKey: keys.deliveries(workspaceId, webhookId) }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.webhooks(workspaceId), exact: true }),
  });
}

export function useRotateSecret(workspaceId: string) {
  return useMutation({
    mutationFn: (webhookId: string) => unwrap(api.POST('/workspaces/{workspaceId}/webhooks/{webhookId}/rotate-secret', { params: { path: { workspaceId, webhookId } } })),
  });
}

export function useSendTestEvent(workspaceId: string) {
  const refresh = useRefreshWebhooks(workspaceId);
  return useMutation({
    mutationFn: (webhookId: string) => unwrap(api.POST('/workspaces/{workspaceId}/webhooks/{webhookId}/test', { params: { path: { workspaceId, webhookId } } })),
    onSettled: refresh,
  });
}

export function useRedeliver(workspaceId: string, webhookId: string) {
  const refresh = useRefreshWebhooks(workspaceId);
  return useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap(api.POST('/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { params: { path: { workspaceId, webhookId, deliveryId } } })),
    onSettled: refresh,
  });
}
