import { Injectable } from '@nestjs/common';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import type { CallerContext } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { RpcClient } from '@sa/messaging';

/** Every request names a bot: the caller's token must allow it, and it must be a bot of the caller's workspace (else 404). */
@Injectable()
export class BotCheck {
  constructor(private readonly rpc: RpcClient) {}

  async mustExist(ctx: CallerContext, botId: string): Promise<void> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const { found } = await this.rpc.send('bots.bot.check', { ids: [botId] }, ctx);
    if (!found.includes(botId)) throw new NotFound('Bot');
  }

  /** The items whose bot still exists in the caller's workspace. */
  async existing<T extends { chatbot_id: string }>(ctx: CallerContext, items: T[]): Promise<T[]> {
    if (!items.length) return items;
    const { found } = await this.rpc.send('bots.bot.check', { ids: [...new Set(items.map((i) => i.chatbot_id))] }, ctx);
    return items.filter((i) => found.includes(i.chatbot_id));
  }
}
