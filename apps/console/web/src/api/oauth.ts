import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { OAuthAllow } from './types';

/** The consent interaction (401 when nobody is signed in, 404 when it expired or never existed). */
export function useInteraction(uid: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.interaction(uid),
    queryFn: () => unwrap(api.GET('/oauth/interactions/{uid}', { params: { path: { uid } } })),
    enabled,
    retry: false,
    staleTime: Infinity,
  });
}

export function useAllowInteraction(uid: string) {
  return useMutation({ mutationFn: (body: OAuthAllow) => unwrap(api.POST('/oauth/interactions/{uid}/allow', { params: { path: { uid } }, body })) });
}

export function useDenyInteraction(uid: string) {
  return useMutation({ mutationFn: () => unwrap(api.POST('/oauth/interactions/{uid}/deny', { params: { path: { uid } } })) });
}

export function useConnections(workspaceId: string) {
  return useQuery({
    queryKey: keys.connections(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/connections', { params: { path: { workspaceId } } }))).data,
  });
}

export function useRevokeConnection(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (connectionId: string) => unwrap(api.POST('/workspaces/{workspaceId}/connections/{connectionId}/revoke', { params: { path: { workspaceId, connectionId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.connections(workspaceId) }),
  });
}
