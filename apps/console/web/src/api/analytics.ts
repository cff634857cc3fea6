import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import { type AddQa, knowledgeKey } from './knowledge';

const params = (workspaceId: string, botId: string | null) => ({ params: { path: { workspaceId }, query: botId ? { bot: botId } : {} } });

/** The figures of GET /v1/analytics (last 30 days), for every bot (null) or one. */
export function useAnalytics(workspaceId: string, botId: string | null) {
  return useQuery({
    queryKey: keys.analytics(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/analytics', params(workspaceId, botId)))).data,
  });
}

/** Top and unanswered questions, for every bot (null) or one. */
export function useAnalyticsQuestions(workspaceId: string, botId: string | null) {
  return useQuery({
    queryKey: [...keys.analyticsQuestions(workspaceId), botId ?? 'all'],
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/analytics/questions', params(workspaceId, botId)))).data,
  });
}

/**
 * "Add an answer": a Q&A knowledge document, through the Knowledge page's own route (one route for
 * one operation); the questions and the knowledge list are read again.
 */
export function useAddAnswer(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: AddQa) => (await unwrap(api.POST('/workspaces/{workspaceId}/knowledge/qa', { params: { path: { workspaceId } }, body }))).data,
    onSuccess: () =>
      Promise.all([queryClient.invalidateQueries({ queryKey: keys.analyticsQuestions(workspaceId) }), queryClient.invalidateQueries({ queryKey: knowledgeKey(workspaceId) })]),
  });
}
