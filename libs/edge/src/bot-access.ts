import type { CallerContext } from '@sa/contracts';
import { BotAccessDenied } from '@sa/errors';

/**
 * Spec part 5, rule 4: a token limited to specific bots must name an allowed chatbotId on
 * knowledge, chat, leads and analytics requests; leaving it out, or naming another bot, gives 403
 * (docs/decisions.md).
 */
export function checkBotAccess(ctx: CallerContext, chatbotId: string | undefined, where: string): void {
  if (!ctx.botIds) return;
  if (!chatbotId) throw new BotAccessDenied(`A token restricted to specific bots must send an allowed chatbotId (${where})`);
  if (!ctx.botIds.includes(chatbotId)) throw new BotAccessDenied();
}
