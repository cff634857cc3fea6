import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { paths } from './schema';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** Calls per action over the window (issue 34, item 5: the records), as the Analytics page shows them. */
export type ActionCounts = Json<paths['/workspaces/{workspaceId}/analytics/actions']['get']['responses'][200]>['data'];
export type ActionCount = ActionCounts['actions'][number];

/** Calls per action over the last 30 days, for every bot (null) or one; under the analytics key, so a workspace switch drops it. */
export function useActionCounts(workspaceId: string, botId: string | null) {
  return useQuery({
    queryKey: [...keys.analytics(workspaceId, botId), 'actions'],
    queryFn: async () =>
      (await unwrap(api.GET('/workspaces/{workspaceId}/analytics/actions', { params: { path: { workspaceId }, query: botId ? { bot: botId } : {} } }))).data,
  });
}
