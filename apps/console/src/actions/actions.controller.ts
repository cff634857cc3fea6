import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ACTION_TEST_RPC_TIMEOUT_MS,
  ActionParams,
  ActionTestResult,
  ActionView,
  BotActionSettingsView,
  BotParams,
  CreateActionBody,
  TestActionBody,
  UpdateActionBody,
  UpdateBotActionSettingsBody,
} from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData, ApiEmpty, ApiList } from '../openapi/console-responses';

/** The host of an action's URL (placeholders are after it): all the audit log says of the address. */
function hostOf(url: string): string {
  try {
    return new URL(url.replace(/\{[^}]*\}/g, 'x')).host;
  } catch {
    return '';
  }
}

/** What the audit log says of an action: its name, method and host; never header names or values, never input. */
const auditOf = (a: ActionView) => ({ name: a.name, method: a.method, host: hostOf(a.url) });

/**
 * A bot's actions (issue 34, first slice: the definitions): calls of the workspace's own HTTPS
 * APIs the bot may make for a visitor, and the bot's action settings. Everyone reads; owners and
 * admins change and test, audit-logged with the action's name, method and host only. Header
 * values are write-only: no answer of any route carries them. The bots service keeps it all
 * (bots.action.*, bots.action-settings.*) and checks the bot is the workspace's (404 otherwise).
 */
@ApiTags('Actions')
@Controller('api/workspaces/:workspaceId/bots/:botId')
export class ActionsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get('actions')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listBotActions', summary: "A bot's actions", description: 'Oldest first. Header values are never shown: each header has its name and `has_value`.' })
  @ApiList('The actions.', ActionView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: ActionView[] }> {
    return { data: await this.rpc.send('bots.action.list', { botId: params.botId }, workspaceOf(caller).ctx) };
  }

  @Post('actions')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'createBotAction',
    summary: 'Add an action',
    description:
      'An HTTPS endpoint the bot may call, with its parameters as JSON Schema. Header values are stored encrypted and never shown again. `confirm` left out: false for GET, true otherwise. 400: a bad member, a parameters schema that is not accepted (each problem an issue), a URL placeholder that is not a parameter, a `user_id_param` without `verified_only`. 409 `conflict`: the name is taken, or the bot has 20 actions.',
  })
  @ApiData(201, 'The action.', ActionView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async create(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(CreateActionBody, 'body')) body: CreateActionBody,
  ): Promise<{ data: ActionView }> {
    const created = await this.rpc.send('bots.action.create', { ...body, botId: params.botId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'action.created', 'action', created.id, { bot_id: params.botId, ...auditOf(created) });
    return { data: created };
  }

  @Get('actions/:actionId')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getBotAction', summary: 'An action', description: 'Header values are never shown.' })
  @ApiData(200, 'The action.', ActionView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async get(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(ActionParams, 'path')) params: ActionParams): Promise<{ data: ActionView }> {
    return { data: await this.rpc.send('bots.action.get', { botId: params.botId, actionId: params.actionId }, workspaceOf(caller).ctx) };
  }

  @Patch('actions/:actionId')
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateBotAction',
    summary: 'Change an action',
    description:
      'Members left out stay as they are. `headers` replaces the list; an entry with a name and no `value` keeps the value stored for that name (400 when none is). A `url` of another origin (scheme, host, port) needs every header value given again (400 otherwise): stored secrets are never sent to another address.',
  })
  @ApiData(200, 'The action as saved.', ActionView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(ActionParams, 'path')) params: ActionParams,
    @Body(dto(UpdateActionBody, 'body')) body: UpdateActionBody,
  ): Promise<{ data: ActionView }> {
    const saved = await this.rpc.send('bots.action.update', { ...body, botId: params.botId, actionId: params.actionId }, workspaceOf(caller).ctx);
    const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
    await this.audit.record(caller, 'action.updated', 'action', saved.id, { bot_id: params.botId, changed, ...auditOf(saved) });
    return { data: saved };
  }

  @Delete('actions/:actionId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'deleteBotAction', summary: 'Delete an action', description: 'The bot no longer offers it, from its next turn.' })
  @ApiEmpty(204, 'Deleted.')
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async delete(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(ActionParams, 'path')) params: ActionParams): Promise<void> {
    const ctx = workspaceOf(caller).ctx;
    const action = await this.rpc.send('bots.action.get', { botId: params.botId, actionId: params.actionId }, ctx);
    await this.rpc.send('bots.action.delete', { botId: params.botId, actionId: params.actionId }, ctx);
    await this.audit.record(caller, 'action.deleted', 'action', params.actionId, { bot_id: params.botId, ...auditOf(action) });
  }

  @Post('actions/:actionId/test')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'testBotAction',
    summary: 'Test an action',
    description:
      "One call with sample input, through the installation's outbound policy (no private addresses, no redirects, 10 s, a size cap). Input that does not fit the parameters, a refusal, a timeout or an HTTP error is the result (`ok: false`, `error`), not an error of this API.",
  })
  @ApiData(200, 'What the endpoint answered.', ActionTestResult)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async test(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(ActionParams, 'path')) params: ActionParams,
    @Body(dto(TestActionBody, 'body')) body: TestActionBody,
  ): Promise<{ data: ActionTestResult }> {
    const ctx = workspaceOf(caller).ctx;
    const action = await this.rpc.send('bots.action.get', { botId: params.botId, actionId: params.actionId }, ctx);
    const result = await this.rpc.send('bots.action.test', { ...body, botId: params.botId, actionId: params.actionId }, ctx, { timeoutMs: ACTION_TEST_RPC_TIMEOUT_MS });
    await this.audit.record(caller, 'action.tested', 'action', params.actionId, { bot_id: params.botId, ...auditOf(action), ok: result.ok, status: result.status, error: result.error });
    return { data: result };
  }

  @Get('action-settings')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getBotActionSettings', summary: "A bot's action settings", description: 'Calls per turn and the built-in actions.' })
  @ApiData(200, 'The settings.', BotActionSettingsView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async settings(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: BotActionSettingsView }> {
    return { data: await this.rpc.send('bots.action-settings.get', { botId: params.botId }, workspaceOf(caller).ctx) };
  }

  @Patch('action-settings')
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'updateBotActionSettings', summary: "Change a bot's action settings", description: 'Members left out stay as they are; so do built-ins left out of `builtins`.' })
  @ApiData(200, 'The settings as saved.', BotActionSettingsView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async updateSettings(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(UpdateBotActionSettingsBody, 'body')) body: UpdateBotActionSettingsBody,
  ): Promise<{ data: BotActionSettingsView }> {
    const saved = await this.rpc.send('bots.action-settings.update', { ...body, botId: params.botId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'action.settings_updated', 'bot', params.botId, { max_calls_per_turn: saved.max_calls_per_turn, builtins: saved.builtins });
    return { data: saved };
  }
}
