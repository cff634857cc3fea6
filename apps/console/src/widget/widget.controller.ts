import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BotParams, ConsoleWidgetView, UpdateWidgetSettingsBody, WidgetSecretView, WidgetSettingsView } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { ApiConsoleErrors, ApiData } from '../openapi/console-responses';
import { currentBuild, widgetInstall } from './widget-install';

/**
 * The visitor widget of a bot (issue 18): everyone reads its settings and install snippet;
 * owners and admins change the allowed origins and the look, and rotate the identity secret.
 * The bots service keeps them (bots.widget.*) and checks the bot is the caller's workspace's
 * (another workspace's bot is 404). The secret is in the answer only: never in the audit log.
 */
@ApiTags('Widget')
@Controller('api/workspaces/:workspaceId/bots/:botId/widget')
export class WidgetController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  private view(settings: WidgetSettingsView): { data: ConsoleWidgetView } {
    return { data: { ...settings, install: widgetInstall(this.config.gatewayPublicUrl, settings.chatbot_id, currentBuild()) } };
  }

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'getWidget',
    summary: "A bot's widget",
    description: 'Allowed origins, look, whether an identity secret is set (never the secret), and the install snippet for websites.',
  })
  @ApiData(200, 'The widget settings and the install snippet.', ConsoleWidgetView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async get(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: ConsoleWidgetView }> {
    return this.view(await this.rpc.send('bots.widget.get', { botId: params.botId }, workspaceOf(caller).ctx));
  }

  @Patch()
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateWidget',
    summary: "Change a bot's widget",
    description:
      'Allowed origins (exact `http(s)://host[:port]`, lower-cased, duplicates dropped; empty: every website) and the look. Members left out stay as they are. Gateways apply the change at once.',
  })
  @ApiData(200, 'The widget settings as saved, with the install snippet.', ConsoleWidgetView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(UpdateWidgetSettingsBody, 'body')) body: UpdateWidgetSettingsBody,
  ): Promise<{ data: ConsoleWidgetView }> {
    const saved = await this.rpc.send('bots.widget.update', { ...body, botId: params.botId }, workspaceOf(caller).ctx);
    const details: Record<string, unknown> = {};
    // (null members are "left out", as the contract's IsOptional reads them)
    if (body.allowed_origins != null) details['allowed_origins'] = saved.allowed_origins;
    if (body.theme != null) details['theme'] = Object.fromEntries(Object.keys(body.theme).map((k) => [k, saved.theme[k as keyof typeof saved.theme]]));
    await this.audit.record(caller, 'widget.updated', 'bot', params.botId, details);
    return this.view(saved);
  }

  @Post('secret')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'rotateWidgetSecret',
    summary: 'Rotate the identity secret',
    description:
      "A new widget identity secret (`wsk_…`) replaces the previous one at once. Websites compute `userHash` = hex HMAC-SHA256(key = secret, message = externalUserId) on their server. Shown in this answer only.",
  })
  @ApiData(201, 'The new secret, shown once.', WidgetSecretView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async rotate(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: WidgetSecretView }> {
    const rotated = await this.rpc.send('bots.widget.secret.rotate', { botId: params.botId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'widget.secret_rotated', 'bot', params.botId, { created_at: rotated.created_at });
    return { data: { secret: rotated.secret, created_at: rotated.created_at } };
  }
}
