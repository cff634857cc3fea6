import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { paths } from './schema';

/*
 * A bot's remote MCP servers (issue 34, item 3): GET/POST …/bots/{botId}/mcp-servers, PATCH and
 * DELETE …/{serverId}, POST …/{serverId}/sync, POST …/{serverId}/oauth/start (Connect). Tokens
 * and the client secret are write-only: views say `has_token` and `oauth.has_client_secret`.
 */

type ServersPath = '/workspaces/{workspaceId}/bots/{botId}/mcp-servers';
type ServerPath = '/workspaces/{workspaceId}/bots/{botId}/mcp-servers/{serverId}';
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

export type McpServer = Json<paths[ServersPath]['get']['responses'][200]>['data'][number];
export type McpTool = McpServer['tools'][number];
export type CreateMcpServer = Json<NonNullable<paths[ServersPath]['post']['requestBody']>>;
export type UpdateMcpServer = Json<NonNullable<paths[ServerPath]['patch']['requestBody']>>;

/** Under the workspace's key, so a switch or a sign-out drops it with the rest. */
const key = (workspaceId: string, botId: string) => ['workspace', workspaceId, 'mcp-servers', botId] as const;
const botPath = (workspaceId: string, botId: string) => ({ params: { path: { workspaceId, botId } } });
const serverPath = (workspaceId: string, botId: string, serverId: string) => ({ params: { path: { workspaceId, botId, serverId } } });

export function useMcpServers(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: key(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/mcp-servers', botPath(workspaceId, botId)))).data,
  });
}

function useRefresh(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: key(workspaceId, botId), exact: true });
}

export function useCreateMcpServer(workspaceId: string, botId: string) {
  const refresh = useRefresh(workspaceId, botId);
  return useMutation({
    mutationFn: async (body: CreateMcpServer) => (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/mcp-servers', { ...botPath(workspaceId, botId), body }))).data,
    onSettled: refresh,
  });
}

/** A change of the server or of its tools' flags (`tools: [{name, confirm?, verified_only?, enabled?}]`). */
export function useUpdateMcpServer(workspaceId: string, botId: string) {
  const refresh = useRefresh(workspaceId, botId);
  return useMutation({
    mutationFn: async ({ serverId, body }: { serverId: string; body: UpdateMcpServer }) =>
      (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}/mcp-servers/{serverId}', { ...serverPath(workspaceId, botId, serverId), body }))).data,
    onSettled: refresh,
  });
}

export function useDeleteMcpServer(workspaceId: string, botId: string) {
  const refresh = useRefresh(workspaceId, botId);
  return useMutation({
    mutationFn: (serverId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/bots/{botId}/mcp-servers/{serverId}', serverPath(workspaceId, botId, serverId))),
    onSettled: refresh,
  });
}

/** Connects and lists the tools: a refusal is the server's `error` in the answer, not an error. */
export function useSyncMcpServer(workspaceId: string, botId: string) {
  const refresh = useRefresh(workspaceId, botId);
  return useMutation({
    mutationFn: async (serverId: string) => (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/mcp-servers/{serverId}/sync', serverPath(workspaceId, botId, serverId)))).data,
    onSettled: refresh,
  });
}

/**
 * Connect (OAuth): the console's server starts the authorization and answers where to send the
 * browser; the authorization server sends it back to the console's callback, then to this page.
 */
export function useStartMcpOAuth(workspaceId: string, botId: string) {
  return useMutation({
    mutationFn: async (serverId: string) =>
      (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/mcp-servers/{serverId}/oauth/start', serverPath(workspaceId, botId, serverId)))).data,
    onSuccess: (started) => window.location.assign(started.authorization_url),
  });
}
