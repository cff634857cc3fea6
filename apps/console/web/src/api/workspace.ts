import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';

const path = (workspaceId: string) => ({ params: { path: { workspaceId } } });

export function useWorkspace(workspaceId: string) {
  return useQuery({ queryKey: keys.workspace(workspaceId), queryFn: () => unwrap(api.GET('/workspaces/{workspaceId}', path(workspaceId))) });
}

export function useBots(workspaceId: string) {
  return useQuery({
    queryKey: keys.bots(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots', path(workspaceId)))).data,
  });
}

export function useAudit(workspaceId: string, limit = 50) {
  return useQuery({
    queryKey: [...keys.audit(workspaceId), limit],
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/audit', { params: { path: { workspaceId }, query: { limit } } }))).data,
  });
}
