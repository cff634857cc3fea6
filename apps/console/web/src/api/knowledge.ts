import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { paths } from './schema';

type ListAnswer = paths['/workspaces/{workspaceId}/knowledge']['get']['responses'][200]['content']['application/json'];
export type KbDocument = ListAnswer['data'][number];
export type AddKnowledge = paths['/workspaces/{workspaceId}/knowledge']['post']['requestBody']['content']['application/json'];
export type AddQa = paths['/workspaces/{workspaceId}/knowledge/qa']['post']['requestBody']['content']['application/json'];
export type ResyncSchedule = paths['/workspaces/{workspaceId}/knowledge/{documentId}/schedule']['put']['requestBody']['content']['application/json']['schedule'];

/** Under ['workspace', id] like every key of a workspace (keys.ts), so a switch or sign-out drops it. */
export const knowledgeKey = (workspaceId: string) => ['workspace', workspaceId, 'knowledge'] as const;

/**
 * Documents being worked on change on their own: the list refreshes while any is queued or
 * processing, or a crawled source has pages not yet ready or failed (its progress, issue 36: they
 * may be more than the list shows).
 */
const POLL_MS = 1500;

export const isPending = (d: KbDocument) => d.status === 'queued' || d.status === 'processing' || (d.pages !== undefined && d.pages.ready + d.pages.failed < d.pages.found);

export function useKnowledge(workspaceId: string) {
  return useQuery({
    queryKey: knowledgeKey(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/knowledge', { params: { path: { workspaceId }, query: {} } }))).data,
    refetchInterval: (query) => (query.state.data?.some(isPending) ? POLL_MS : false),
  });
}

function useRefresh(workspaceId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: knowledgeKey(workspaceId) });
}

export function useAddKnowledge(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: (body: AddKnowledge) => unwrap(api.POST('/workspaces/{workspaceId}/knowledge', { params: { path: { workspaceId } }, body })),
    onSettled: refresh,
  });
}

export function useUploadFile(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: ({ file, title, chatbotId }: { file: File; title?: string; chatbotId?: string }) =>
      unwrap(
        api.POST('/workspaces/{workspaceId}/knowledge/files', {
          params: { path: { workspaceId }, query: { fileName: file.name, title, chatbotId } },
          // The body is the file itself (no multipart): the browser streams it as it is.
          body: file as unknown as string,
          bodySerializer: (b: unknown) => b as BodyInit,
          headers: { 'Content-Type': 'application/octet-stream' },
        }),
      ),
    onSettled: refresh,
  });
}

export function useAddQa(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: (body: AddQa) => unwrap(api.POST('/workspaces/{workspaceId}/knowledge/qa', { params: { path: { workspaceId } }, body })),
    onSettled: refresh,
  });
}

export function useDeleteKnowledge(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: (documentId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/knowledge/{documentId}', { params: { path: { workspaceId, documentId } } })),
    onSettled: refresh,
  });
}

export function useResync(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: (documentId: string) => unwrap(api.POST('/workspaces/{workspaceId}/knowledge/{documentId}/resync', { params: { path: { workspaceId, documentId } } })),
    onSettled: refresh,
  });
}

export function useSchedule(workspaceId: string) {
  const refresh = useRefresh(workspaceId);
  return useMutation({
    mutationFn: ({ documentId, schedule }: { documentId: string; schedule: ResyncSchedule }) =>
      unwrap(api.PUT('/workspaces/{workspaceId}/knowledge/{documentId}/schedule', { params: { path: { workspaceId, documentId } }, body: { schedule } })),
    onSettled: refresh,
  });
}
