import { Controller } from '@nestjs/common';
import { BotBehaviourRequest, BotBehaviourView, CallerContext, UpdateBotBehaviourRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { BehaviourService } from './behaviour.service';

/** bots.behaviour.*: a bot's behaviour (the console; owners and admins change it, the console checks the role). */
@Controller()
export class BehaviourHandler {
  constructor(private readonly behaviour: BehaviourService) {}

  @RpcHandler('bots.behaviour.get')
  get(req: BotBehaviourRequest, ctx: CallerContext): Promise<BotBehaviourView> {
    return this.behaviour.get(ctx, req.botId);
  }

  @RpcHandler('bots.behaviour.update')
  update(req: UpdateBotBehaviourRequest, ctx: CallerContext): Promise<BotBehaviourView> {
    return this.behaviour.update(ctx, req);
  }
}
