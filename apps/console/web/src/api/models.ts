import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { CreateModelConnection, EmbeddingSettings, TestModelConnection, UpdateEmbeddingSettings, UpdateModelConnection } from './types';

/** While the knowledge is re-embedded with a new model, its progress is read this often. */
const REINDEX_POLL_MS = 2000;

const workspacePath = (workspaceId: string) => ({ params: { path: { workspaceId } } });
const connectionPath = (workspaceId: string, connectionId: string) => ({ params: { path: { workspaceId, connectionId } } });

/** The workspace's model connections (GET …/models), oldest first. Keys are never returned: `has_key` only. */
export function useModelConnections(workspaceId: string) {
  return useQuery({
    queryKey: keys.modelConnections(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/models', workspacePath(workspaceId)))).data,
  });
}

function useRefreshModelConnections(workspaceId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: keys.modelConnections(workspaceId), exact: true });
}

export function useCreateModelConnection(workspaceId: string) {
  const refresh = useRefreshModelConnections(workspaceId);
  return useMutation({
    mutationFn: async (body: CreateModelConnection) => (await unwrap(api.POST('/workspaces/{workspaceId}/models', { ...workspacePath(workspaceId), body }))).data,
    onSettled: refresh,
  });
}

export function useUpdateModelConnection(workspaceId: string) {
  const refresh = useRefreshModelConnections(workspaceId);
  return useMutation({
    mutationFn: async ({ connectionId, body }: { connectionId: string; body: UpdateModelConnection }) =>
      (await unwrap(api.PATCH('/workspaces/{workspaceId}/models/{connectionId}', { ...connectionPath(workspaceId, connectionId), body }))).data,
    onSettled: refresh,
  });
}

/** Deletes a connection; its bots go back to the installation's model (their cached behaviour is refreshed). */
export function useDeleteModelConnection(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (connectionId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/models/{connectionId}', connectionPath(workspaceId, connectionId))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.behaviours(workspaceId) }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.modelConnections(workspaceId), exact: true }),
  });
}

/** One tiny request to the provider: a refusal is a result (`ok: false` and why), not an error. */
export function useTestModelConnection(workspaceId: string) {
  return useMutation({
    mutationFn: async ({ connectionId, use }: { connectionId: string } & TestModelConnection) =>
      (await unwrap(api.POST('/workspaces/{workspaceId}/models/{connectionId}/test', { ...connectionPath(workspaceId, connectionId), body: use ? { use } : {} }))).data,
  });
}

/** The workspace's embedding model and the progress of a switch; read every 2 s while re-embedding. */
export function useEmbeddingSettings(workspaceId: string) {
  return useQuery({
    queryKey: keys.embedding(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/embedding', workspacePath(workspaceId)))).data,
    refetchInterval: (query) => (query.state.data?.status === 'reindexing' ? REINDEX_POLL_MS : false),
  });
}

/** Switches the embedding model (PUT): the answer, reindexing, replaces the cached settings. */
export function useUpdateEmbedding(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateEmbeddingSettings): Promise<EmbeddingSettings> => (await unwrap(api.PUT('/workspaces/{workspaceId}/embedding', { ...workspacePath(workspaceId), body }))).data,
    onSuccess: (data) => queryClient.setQueryData(keys.embedding(workspaceId), data),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.modelConnections(workspaceId), exact: true }),
  });
}
