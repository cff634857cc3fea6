import { Controller } from '@nestjs/common';
import { BotAccess, enforceBotAccess, visibleBots } from '@sa/bot-access';
import { ActionCountsRequest, ActionCountsView, CallerContext, SessionActionCall, SessionActionCallsRequest } from '@sa/contracts';
import { InsufficientScope, NotFound } from '@sa/errors';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { MessagesRepository } from '../conversations/messages.repository';
import { ActionCallsQueries } from './action-calls.queries';

/**
 * The records of actions for the console (issue 34, item 5): a session's recorded calls for its
 * transcript, and calls per action for its Analytics page, with the bot rules of the other reads
 * (a restricted token sees only its bots; a named bot must be the workspace's).
 */
@Controller()
export class ActionCallsHandler {
  constructor(
    private readonly calls: ActionCallsQueries,
    private readonly messages: MessagesRepository,
    private readonly rpc: RpcClient,
  ) {}

  /**
   * A session's calls, for owners and admins only. The console asks only for them; here, as for the
   * passages (chat.conversation.transcript), the caller must be a person (never an API token or a
   * connection: the public API has no records) with the owner/admin scopes.
   */
  @RpcHandler('chat.conversation.action-calls')
  async ofSession(req: SessionActionCallsRequest, ctx: CallerContext): Promise<SessionActionCall[]> {
    if (ctx.tokenId != null || !ctx.scopes.includes('kb:write')) throw new InsufficientScope('kb:write');
    const owner = await this.messages.sessionBot(ctx.tenantId, req.sessionId);
    if (owner === undefined) return [];
    enforceBotAccess(ctx, BotAccess.OfResource, owner, { what: 'that session' });
    return this.calls.ofSession(ctx.tenantId, req.sessionId);
  }

  /** Calls per action over `days` days, for every bot the caller sees or one (the rules of chat.analytics.questions). */
  @RpcHandler('chat.analytics.actions')
  async counts(req: ActionCountsRequest, ctx: CallerContext): Promise<ActionCountsView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    if (req.chatbotId) {
      const { found } = await this.rpc.send('bots.bot.check', { ids: [req.chatbotId] }, ctx);
      if (!found.includes(req.chatbotId)) throw new NotFound('Bot');
    }
    return this.calls.counts({ tenantId: ctx.tenantId, chatbotId: req.chatbotId, botIds: visibleBots(ctx), days: req.days });
  }
}
