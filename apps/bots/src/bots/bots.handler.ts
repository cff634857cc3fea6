import { Controller } from '@nestjs/common';
import { BotSummary, BotView, CallerContext, CheckBotsReply, CheckBotsRequest, CreateBotRequest, CreatedBotView } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { BotsService } from './bots.service';

@Controller()
export class BotsHandler {
  constructor(private readonly bots: BotsService) {}

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

  @RpcHandler('bots.bot.create')
  create(req: CreateBotRequest, ctx: CallerContext): Promise<CreatedBotView> {
    return this.bots.create(ctx, req);
  }
}
