import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BotParams, CreateMcpServerBody, MCP_SYNC_RPC_TIMEOUT_MS, McpServerParams, McpServerView, UpdateMcpServerBody } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
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
}
