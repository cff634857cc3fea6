import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BotParams, CHANNELS_PER_BOT_MAX, ChannelConnectionView, CreateChannelConnectionBody, UpdateChannelConnectionBody } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData, ApiEmpty, ApiList } from '../openapi/console-responses';
import { ChannelConnectionParams } from './channel-params';

/** What the audit log says of a connection: its kind and name; never a setting's or a credential's value. */
const auditOf = (c: ChannelConnectionView) => ({ kind: c.kind, name: c.name });

/** The names of the credentials a body sets, sorted: what the audit log says of them (never their values). */
const secretNames = (secrets: Record<string, string> | undefined): string[] => Object.keys(secrets ?? {}).sort();

/**
 * A bot's channel connections (issue 35): the bot on an e-mail mailbox, a WhatsApp number, a
 * Telegram bot or a Slack app. Everyone reads; owners and admins add, change and delete,
 * audit-logged with the kind, the name and the names of the credentials set, never a value. The
 * credentials are write-only: no answer of any route carries them (`secrets_set` names the ones
 * stored). The channels service keeps it all (channels.connection.*), checks the bot is the
 * workspace's (404 otherwise) and the settings and secrets the kind takes (400).
 */
@ApiTags('Channels')
@Controller('api/workspaces/:workspaceId/bots/:botId/channels')
export class ChannelsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'listBotChannels',
    summary: "A bot's channel connections",
    description: 'Oldest first, each with its status, last error and last messages. Credentials are never shown: `secrets_set` names the stored ones.',
  })
  @ApiList('The connections.', ChannelConnectionView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: ChannelConnectionView[] }> {
    return { data: await this.rpc.send('channels.connection.list', { botId: params.botId }, workspaceOf(caller).ctx) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'createBotChannel',
    summary: 'Add a channel connection',
    description:
      `The bot on one provider account: the kind, a name, the kind's settings and credentials. The credentials are stored encrypted and never shown again. The connection is \`pending\` until its first message; for WhatsApp, Telegram and Slack give the provider its \`webhook_url\`. 400: a bad member, a setting or credential the kind does not take, a required one missing. 409 \`conflict\`: the bot has ${CHANNELS_PER_BOT_MAX} connections.`,
  })
  @ApiData(201, 'The connection.', ChannelConnectionView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async create(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(CreateChannelConnectionBody, 'body')) body: CreateChannelConnectionBody,
  ): Promise<{ data: ChannelConnectionView }> {
    const created = await this.rpc.send('channels.connection.create', { ...body, botId: params.botId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'channel.created', 'channel', created.id, { bot_id: params.botId, ...auditOf(created), secrets_set: secretNames(body.secrets) });
    return { data: created };
  }

  @Patch(':connectionId')
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateBotChannel',
    summary: 'Change a channel connection',
    description:
      'Members left out stay as they are. `settings` replaces them all; `secrets` replaces only the credentials it names (the others stay). `enabled: false` turns the connection off: its provider gets 404 and the mailbox is not read.',
  })
  @ApiData(200, 'The connection as saved.', ChannelConnectionView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(ChannelConnectionParams, 'path')) params: ChannelConnectionParams,
    @Body(dto(UpdateChannelConnectionBody, 'body')) body: UpdateChannelConnectionBody,
  ): Promise<{ data: ChannelConnectionView }> {
    const saved = await this.rpc.send('channels.connection.update', { ...body, botId: params.botId, connectionId: params.connectionId }, workspaceOf(caller).ctx);
    const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
    await this.audit.record(caller, 'channel.updated', 'channel', saved.id, {
      bot_id: params.botId,
      changed,
      ...auditOf(saved),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.secrets ? { secrets_changed: secretNames(body.secrets) } : {}),
    });
    return { data: saved };
  }

  @Delete(':connectionId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'deleteBotChannel',
    summary: 'Delete a channel connection',
    description: 'The bot no longer answers on it: its provider gets 404 and the mailbox is not read. Its stored credentials are deleted with it; its conversations stay.',
  })
  @ApiEmpty(204, 'Deleted.')
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async delete(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(ChannelConnectionParams, 'path')) params: ChannelConnectionParams): Promise<void> {
    const deleted = await this.rpc.send('channels.connection.delete', { botId: params.botId, connectionId: params.connectionId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'channel.deleted', 'channel', params.connectionId, { bot_id: params.botId, ...auditOf(deleted) });
  }
}
