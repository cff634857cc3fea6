import { Controller } from '@nestjs/common';
import { CallerContext, MessageUsageView, UsageRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { MessagesRepository, usageMonth } from '../conversations/messages.repository';

/**
 * chat.usage.get: the messages counted this calendar month (UTC) against the workspace's monthly
 * quota, exactly as a turn reserves them (widget messages count against each bot's own budget,
 * not here). For the console's workspace page.
 */
@Controller()
export class UsageHandler {
  constructor(private readonly messages: MessagesRepository) {}

  @RpcHandler('chat.usage.get')
  async get(_req: UsageRequest, ctx: CallerContext): Promise<MessageUsageView> {
    const now = new Date();
    return { messages_this_month: await this.messages.messagesInMonth(ctx.tenantId, now), month_start: `${usageMonth(now)}T00:00:00.000Z` };
  }
}
