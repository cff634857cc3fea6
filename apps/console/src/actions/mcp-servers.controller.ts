import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Redirect, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  BotParams,
  CreateMcpServerBody,
  MCP_OAUTH_CALLBACK_PATH,
  MCP_OAUTH_RPC_TIMEOUT_MS,
  MCP_SYNC_RPC_TIMEOUT_MS,
  McpOAuthStartView,
  McpServerParams,
  McpServerView,
  UpdateMcpServerBody,
} from '@sa/contracts';
import { dto } from '@sa/edge';
import { BadRequest, NotFound } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { ForbiddenRole, PeopleAdmin, roleAtLeast } from '@sa/people';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { Workspaces } from '../auth/workspaces';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { ApiConsoleErrors, ApiData, ApiEmpty, ApiList } from '../openapi/console-responses';

/** The host of a server's URL: all the audit log says of the address. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** What the audit log says of a server: its name, host and kind of auth; never the token. */
const auditOf = (s: McpServerView) => ({ name: s.name, host: hostOf(s.url), auth: s.auth });

/**
 * A bot's remote MCP servers (issue 34, item 3): their tools are actions of the bot, each with
 * the flags of an action. Everyone reads; owners and admins add, change, sync and delete,
 * audit-logged with the server's name, host and kind of auth only. The token is write-only: no
 * answer of any route carries it. The bots service keeps it all (bots.mcp-server.*) and checks
 * the bot is the workspace's (404 otherwise).
 */
@ApiTags('Actions')
@Controller('api/workspaces/:workspaceId/bots/:botId/mcp-servers')
export class McpServersController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listBotMcpServers', summary: "A bot's MCP servers", description: 'Oldest first, each with the tools of its last sync. The token is never shown: `has_token` says whether one is stored.' })
  @ApiList('The servers.', McpServerView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: McpServerView[] }> {
    return { data: await this.rpc.send('bots.mcp-server.list', { botId: params.botId }, workspaceOf(caller).ctx) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'createBotMcpServer',
    summary: 'Add an MCP server',
    description:
      'A remote MCP server (https) whose tools become actions of the bot after a sync. A bearer token is stored encrypted and never shown again. 400: a bad member, `auth: bearer` without a token. 409 `conflict`: the name is taken, or the bot has 5 servers.',
  })
  @ApiData(201, 'The server, not synced yet.', McpServerView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async create(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(CreateMcpServerBody, 'body')) body: CreateMcpServerBody,
  ): Promise<{ data: McpServerView }> {
    const created = await this.rpc.send('bots.mcp-server.create', { ...body, botId: params.botId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'mcp_server.created', 'mcp_server', created.id, { bot_id: params.botId, ...auditOf(created) });
    return { data: created };
  }

  @Patch(':serverId')
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateBotMcpServer',
    summary: 'Change an MCP server or its tools',
    description:
      "Members left out stay as they are; `tools` changes the flags of tools of the last sync. A `url` of another origin needs the token again (400 otherwise) and forgets the tools (sync again). 409 `conflict`: the name is taken, or turning tools on would pass 20 MCP tools for the bot.",
  })
  @ApiData(200, 'The server as saved.', McpServerView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(McpServerParams, 'path')) params: McpServerParams,
    @Body(dto(UpdateMcpServerBody, 'body')) body: UpdateMcpServerBody,
  ): Promise<{ data: McpServerView }> {
    const saved = await this.rpc.send('bots.mcp-server.update', { ...body, botId: params.botId, serverId: params.serverId }, workspaceOf(caller).ctx);
    const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
    // The tools' flags as they were changed (names and booleans only); never the token.
    const tools = body.tools?.map((t) => ({ name: t.name, confirm: t.confirm, verified_only: t.verified_only, enabled: t.enabled }));
    await this.audit.record(caller, 'mcp_server.updated', 'mcp_server', saved.id, { bot_id: params.botId, changed, ...auditOf(saved), ...(tools ? { tools } : {}) });
    return { data: saved };
  }

  @Delete(':serverId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'deleteBotMcpServer', summary: 'Delete an MCP server', description: 'The bot no longer offers its tools, from its next turn.' })
  @ApiEmpty(204, 'Deleted.')
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async delete(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(McpServerParams, 'path')) params: McpServerParams): Promise<void> {
    const deleted = await this.rpc.send('bots.mcp-server.delete', { botId: params.botId, serverId: params.serverId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'mcp_server.deleted', 'mcp_server', params.serverId, { bot_id: params.botId, ...auditOf(deleted) });
  }

  @Post(':serverId/sync')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'syncBotMcpServer',
    summary: "Sync an MCP server's tools",
    description:
      "Connects to the server through the installation's outbound policy (no private addresses, no redirects, 10 s), lists its tools and stores them: a tool already known keeps its flags; a new one needs confirmation unless the server marks it read-only, is for every visitor, and is on while the bot has fewer than 20 MCP tools on. A refusal, a timeout or bad credentials is the server's `error` (the tools of the sync before stay), not an error of this API.",
  })
  @ApiData(200, 'The server as stored after the sync.', McpServerView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async sync(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(McpServerParams, 'path')) params: McpServerParams): Promise<{ data: McpServerView }> {
    const synced = await this.rpc.send('bots.mcp-server.sync', { botId: params.botId, serverId: params.serverId }, workspaceOf(caller).ctx, { timeoutMs: MCP_SYNC_RPC_TIMEOUT_MS });
    await this.audit.record(caller, 'mcp_server.synced', 'mcp_server', params.serverId, {
      bot_id: params.botId,
      ...auditOf(synced),
      ok: synced.error === null,
      tools: synced.tools.length,
    });
    return { data: synced };
  }

  @Post(':serverId/oauth/start')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'startBotMcpServerOAuth',
    summary: 'Connect an MCP server with OAuth',
    description:
      "For a server with `auth: oauth`: finds its authorization server (RFC 9728, RFC 8414), registers the bot there unless the server has a client id (RFC 7591), and answers the authorization URL (PKCE S256, a one-time state) to send the browser to. The authorization server sends the browser back to the console's callback, which connects the bot and syncs; the flow must come back within 10 minutes, from the person who started it. 400: the server does not use OAuth, or its authorization server cannot be reached or used (the reason).",
  })
  @ApiData(200, 'Where to send the browser, and until when.', McpOAuthStartView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async oauthStart(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(McpServerParams, 'path')) params: McpServerParams): Promise<{ data: McpOAuthStartView }> {
    const started = await this.rpc.send(
      'bots.mcp-server.oauth-start',
      { botId: params.botId, serverId: params.serverId, redirectUri: mcpOAuthRedirectUri(this.config), personId: caller.person.id },
      workspaceOf(caller).ctx,
      { timeoutMs: MCP_OAUTH_RPC_TIMEOUT_MS },
    );
    await this.audit.record(caller, 'mcp_server.connect_started', 'mcp_server', params.serverId, { bot_id: params.botId, authorization_host: hostOf(started.authorization_url) });
    return { data: started };
  }
}

/** The redirect URI of every Connect: the console's public URL and the callback's path. */
export const mcpOAuthRedirectUri = (config: Pick<ConsoleConfig, 'publicUrl'>): string => `${config.publicUrl.replace(/\/+$/, '')}${MCP_OAUTH_CALLBACK_PATH}`;

/** A callback's query member: one string of at most `max` characters, or absent. */
function member(query: Record<string, unknown>, name: string, max: number): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw new BadRequest(`${name} must be one string of 1 to ${max} characters`);
  return v;
}

/**
 * Where an MCP server's authorization server sends the browser back after a Connect (issue 34,
 * item 3). A signed-in person's route (the session cookie comes with the top-level navigation):
 * the state names the flow (the bots service knows it by its hash), which must be live and the
 * person's own; the person must still be an admin of its workspace; then the bots service spends
 * the state (single use), exchanges the code and syncs, and the browser goes to the bot's page
 * with the outcome. A wrong, used or expired state is a 400 `invalid_token` and nothing is stored.
 */
@ApiTags('Actions')
@Controller(MCP_OAUTH_CALLBACK_PATH.replace(/^\//, ''))
export class McpOAuthCallbackController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
    private readonly people: PeopleAdmin,
    private readonly workspaces: Workspaces,
  ) {}

  @Get()
  @ConsoleRoute('session')
  @Redirect()
  @ApiOperation({
    operationId: 'finishMcpServerOAuth',
    summary: 'The OAuth callback of a Connect',
    description:
      "The authorization server's redirect after a Connect (a browser navigation, not for programs): `state` and `code`, or `error`. Answers 303 to the bot's page with `mcp_oauth=connected` or `mcp_oauth=failed` and `mcp_oauth_message`. 400 `invalid_token`: the state is unknown, used, expired or another person's; nothing is stored.",
  })
  @ApiQuery({ name: 'state', required: true, schema: { type: 'string' } })
  @ApiQuery({ name: 'code', required: false, schema: { type: 'string' } })
  @ApiQuery({ name: 'error', required: false, schema: { type: 'string' } })
  @ApiQuery({ name: 'iss', required: false, schema: { type: 'string' } })
  @ApiResponse({ status: 303, description: "To the bot's page, with the outcome." })
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async callback(@ConsoleCaller() caller: ConsoleCallerInfo, @Query() query: Record<string, unknown>, @Req() req: FastifyRequest): Promise<{ url: string; statusCode: number }> {
    const state = member(query, 'state', 200);
    if (!state) throw new BadRequest('state is required');
    const code = member(query, 'code', 4000);
    const error = member(query, 'error', 200);
    const iss = member(query, 'iss', 2000);
    if (!code && !error) throw new BadRequest('code or error is required');
    const flow = await this.rpc.send('bots.mcp-server.oauth-flow', { state, personId: caller.person.id });
    const role = await this.people.roleIn(caller.person.id, flow.tenant_id);
    if (!role) throw new NotFound('Workspace');
    if (!roleAtLeast(role, 'admin')) throw new ForbiddenRole();
    const facts = await this.workspaces.facts(flow.tenant_id);
    if (!facts) throw new NotFound('Workspace');
    const ctx = this.workspaces.callerContext(facts, role, String(req.id));
    const done = await this.rpc.send(
      'bots.mcp-server.oauth-finish',
      { botId: flow.bot_id, serverId: flow.server_id, state, personId: caller.person.id, ...(code ? { code } : {}), ...(error ? { error } : {}), ...(iss ? { iss } : {}) },
      ctx,
      { timeoutMs: MCP_OAUTH_RPC_TIMEOUT_MS },
    );
    const withWorkspace = { ...caller, workspace: { id: facts.id, name: facts.name, role }, ctx };
    await this.audit.record(withWorkspace, done.connected ? 'mcp_server.connected' : 'mcp_server.connect_failed', 'mcp_server', flow.server_id, {
      bot_id: flow.bot_id,
      name: done.server.name,
      host: hostOf(done.server.url),
      ...(done.connected ? { tools: done.server.tools.length } : {}),
    });
    const outcome = new URLSearchParams({ mcp_server: flow.server_id, mcp_oauth: done.connected ? 'connected' : 'failed', ...(done.message ? { mcp_oauth_message: done.message.slice(0, 300) } : {}) });
    return { url: `/w/${facts.id}/bots/${flow.bot_id}?${outcome.toString()}`, statusCode: 303 };
  }
}
