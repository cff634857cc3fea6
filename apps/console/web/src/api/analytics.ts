import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import { type AddQa, knowledgeKey } from './knowledge';
import type { paths } from './schema';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** Conversations, visitor messages and unanswered replies per channel over the window (issue 35). */
export type ChannelCounts = Json<paths['/workspaces/{workspaceId}/analytics/channels']['get']['responses'][200]>['data'];
export type ChannelCount = ChannelCounts['channels'][number];

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

/** Tokens per bot and day (last 30 days) and the monthly token budget, for every bot (null) or one. */
export function useTokenUsage(workspaceId: string, botId: string | null) {
  return useQuery({
    queryKey: [...keys.tokenUsage(workspaceId), botId ?? 'all'],
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/analytics/tokens', params(workspaceId, botId)))).data,
  });
}

/** Issue 35: conversations and visitor messages per channel (last 30 days), for every bot (null) or one; under the analytics key, so a workspace switch drops it. */
export function useChannelCounts(workspaceId: string, botId: string | null) {
  return useQuery({
    queryKey: [...keys.analytics(workspaceId, botId), 'channels'],
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/analytics/channels', params(workspaceId, botId)))).data,
  });
}

/** Sets (or, with null, removes) the monthly token budget; the token figures are read again. */
export function useSetTokenBudget(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (monthly_tokens: number | null) => (await unwrap(api.PUT('/workspaces/{workspaceId}/token-budget', { params: { path: { workspaceId } }, body: { monthly_tokens } }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.tokenUsage(workspaceId) }),
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
