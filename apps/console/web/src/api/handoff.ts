import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { paths } from './schema';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Data<T> = T extends { data: infer D } ? D : never;

export type Handoff = Data<Json<paths['/workspaces/{workspaceId}/handoffs']['get']['responses'][200]>>[number];
export type HandoffConversation = Data<Json<paths['/workspaces/{workspaceId}/handoffs/{sessionId}']['get']['responses'][200]>>;
export type HandoffMessage = HandoffConversation['messages'][number];

/** Query keys under the workspace's (a switch or sign-out drops them with it). */
const handoffKeys = {
  queue: (id: string, include: string) => ['workspace', id, 'handoffs', include] as const,
  all: (id: string) => ['workspace', id, 'handoffs'] as const,
  conversation: (id: string, sessionId: string) => ['workspace', id, 'handoffs', 'conversation', sessionId] as const,
};

/** Visitors write and people take conversations over on their own: the queue and the open conversation refresh while shown. */
const REFRESH_MS = 3000;

export function useHandoffQueue(workspaceId: string, include: 'open' | 'all') {
  return useQuery({
    queryKey: handoffKeys.queue(workspaceId, include),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/handoffs', { params: { path: { workspaceId }, query: { include } } }))).data,
    refetchInterval: REFRESH_MS,
  });
}

export function useHandoffConversation(workspaceId: string, sessionId: string | null) {
  return useQuery({
    queryKey: handoffKeys.conversation(workspaceId, sessionId ?? ''),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/handoffs/{sessionId}', { params: { path: { workspaceId, sessionId: sessionId! } } }))).data,
    enabled: sessionId !== null,
    refetchInterval: REFRESH_MS,
  });
}

function useRefresh(workspaceId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: handoffKeys.all(workspaceId) });
}

export function useTakeHandoff(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: (sessionId: string) => unwrap(api.POST('/workspaces/{workspaceId}/handoffs/{sessionId}/take', { params: { path: { workspaceId, sessionId } } })),
    onSettled: refresh,
  });
}

export function useReleaseHandoff(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: (sessionId: string) => unwrap(api.POST('/workspaces/{workspaceId}/handoffs/{sessionId}/release', { params: { path: { workspaceId, sessionId } } })),
    onSettled: refresh,
  });
}

export function useReplyHandoff(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: ({ sessionId, text }: { sessionId: string; text: string }) =>
      unwrap(api.POST('/workspaces/{workspaceId}/handoffs/{sessionId}/reply', { params: { path: { workspaceId, sessionId } }, body: { text } })),
    onSettled: refresh,
  });
}
