import { Controller } from '@nestjs/common';
import { BotSummary, BotView, PublicBot, PublicBotRequest, CallerContext, CheckBotsReply, CheckBotsRequest, CreateBotRequest, CreatedBotView, UpdateBotRequest } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { RpcHandler } from '@sa/messaging';
import { BotsService } from './bots.service';
import { WidgetSettingsService } from '../widget/widget-settings.service';

@Controller()
export class BotsHandler {
  constructor(
    private readonly bots: BotsService,
    private readonly widget: WidgetSettingsService,
  ) {}

  @RpcHandler('bots.bot.list')
  list(_req: object, ctx: CallerContext): Promise<BotView[]> {
    return this.bots.list(ctx);
  }

  @RpcHandler('bots.bot.check')
  check(req: CheckBotsRequest, ctx: CallerContext): Promise<CheckBotsReply> {
    return this.bots.check(ctx, req.ids);
  }

  @RpcHandler('bots.bot.describe')
  describe(req: CheckBotsRequest, ctx: CallerContext): Promise<BotSummary[]> {
    return this.bots.describe(ctx, req.ids);
  }

  /** For the gateway's public widget routes: which workspace a bot belongs to (no caller yet), and its widget settings. */
  @RpcHandler('bots.bot.public')
  async publicBot(req: PublicBotRequest): Promise<PublicBot> {
    const bot = await this.widget.publicBot(req.botId);
    if (!bot) throw new NotFound('Bot');
    return bot;
  }

  @RpcHandler('bots.bot.create')
  create(req: CreateBotRequest, ctx: CallerContext): Promise<CreatedBotView> {
    return this.bots.create(ctx, req);
  }

  /** Issue 19: the gateways drop their cached copy of the bot (the widget shows its name and language). */
  @RpcHandler('bots.bot.update')
  async update(req: UpdateBotRequest, ctx: CallerContext): Promise<BotView> {
    const bot = await this.bots.update(ctx, req);
    this.widget.announceChange(bot.id);
    return bot;
  }
}
