import { Controller } from '@nestjs/common';
import { CallerContext, TokenBudgetView, TokenUsageRequest, TokenUsageView, UpdateTokenBudgetBody } from '@sa/contracts';
import { InsufficientScope, NotFound } from '@sa/errors';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { TokenUsageRepository } from './token-usage.repository';

/**
 * chat.tokens.*: tokens per bot and day with the monthly budget (the console's Analytics page), and
 * setting the budget (its Workspace page; owners and admins: a caller context with write scopes).
 */
@Controller()
export class TokenUsageHandler {
  constructor(
    private readonly tokens: TokenUsageRepository,
    private readonly rpc: RpcClient,
  ) {}

  @RpcHandler('chat.tokens.usage')
  async usage(req: TokenUsageRequest, ctx: CallerContext): Promise<TokenUsageView> {
    if (req.chatbotId) {
      const { found } = await this.rpc.send('bots.bot.check', { ids: [req.chatbotId] }, ctx);
      if (!found.includes(req.chatbotId)) throw new NotFound('Bot');
    }
    const now = new Date();
    const [days, budget] = await Promise.all([this.tokens.byDay(ctx.tenantId, req.chatbotId, now), this.tokens.budget(ctx.tenantId, now)]);
    return { days, budget };
  }

  @RpcHandler('chat.tokens.budget.set')
  async setBudget(req: UpdateTokenBudgetBody, ctx: CallerContext): Promise<TokenBudgetView> {
    if (!ctx.scopes.includes('bots:write')) throw new InsufficientScope('bots:write');
    await this.tokens.setBudget(ctx.tenantId, req.monthly_tokens);
    return this.tokens.budget(ctx.tenantId, new Date());
  }
}
