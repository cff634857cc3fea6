import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { paths } from './schema';

/*
 * A bot's channel connections (issue 35): GET/POST …/bots/{botId}/channels, PATCH and DELETE
 * …/{connectionId}. Credentials are write-only: views name the stored ones in `secrets_set`.
 */

type ConnectionsPath = '/workspaces/{workspaceId}/bots/{botId}/channels';
type ConnectionPath = '/workspaces/{workspaceId}/bots/{botId}/channels/{connectionId}';
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

export type ChannelConnection = Json<paths[ConnectionsPath]['get']['responses'][200]>['data'][number];
export type ChannelKind = ChannelConnection['kind'];
export type ChannelStatus = ChannelConnection['status'];
export type CreateChannelConnection = Json<NonNullable<paths[ConnectionsPath]['post']['requestBody']>>;
export type UpdateChannelConnection = Json<NonNullable<paths[ConnectionPath]['patch']['requestBody']>>;

/** Under the workspace's key, so a switch or a sign-out drops it with the rest. */
const key = (workspaceId: string, botId: string) => ['workspace', workspaceId, 'channels', botId] as const;
const botPath = (workspaceId: string, botId: string) => ({ params: { path: { workspaceId, botId } } });
const connectionPath = (workspaceId: string, botId: string, connectionId: string) => ({ params: { path: { workspaceId, botId, connectionId } } });

export function useChannelConnections(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: key(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/channels', botPath(workspaceId, botId)))).data,
  });
}

function useRefresh(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: key(workspaceId, botId), exact: true });
}

export function useCreateChannelConnection(workspaceId: string, botId: string) {
  const refresh = useRefresh(workspaceId, botId);
  return useMutation({
    mutationFn: async (body: CreateChannelConnection) => (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/channels', { ...botPath(workspaceId, botId), body }))).data,
    onSettled: refresh,
  });
}

/** A change: members left out stay; `secrets` replaces only the credentials it names. */
export function useUpdateChannelConnection(workspaceId: string, botId: string) {
  const refresh = useRefresh(workspaceId, botId);
  return useMutation({
    mutationFn: async ({ connectionId, body }: { connectionId: string; body: UpdateChannelConnection }) =>
      (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}/channels/{connectionId}', { ...connectionPath(workspaceId, botId, connectionId), body }))).data,
    onSettled: refresh,
  });
}

export function useDeleteChannelConnection(workspaceId: string, botId: string) {
  const refresh = useRefresh(workspaceId, botId);
  return useMutation({
    mutationFn: (connectionId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/bots/{botId}/channels/{connectionId}', connectionPath(workspaceId, botId, connectionId))),
    onSettled: refresh,
  });
}
