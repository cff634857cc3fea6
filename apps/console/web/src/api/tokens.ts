import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { CreateApiToken } from './types';

export function useTokens(workspaceId: string) {
  return useQuery({
    queryKey: keys.tokens(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/tokens', { params: { path: { workspaceId } } }))).data,
  });
}

export function useCreateToken(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateApiToken) => unwrap(api.POST('/workspaces/{workspaceId}/tokens', { params: { path: { workspaceId } }, body })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.tokens(workspaceId) }),
  });
}

export function useRevokeToken(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) => unwrap(api.POST('/workspaces/{workspaceId}/tokens/{tokenId}/revoke', { params: { path: { workspaceId, tokenId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.tokens(workspaceId) }),
  });
}
