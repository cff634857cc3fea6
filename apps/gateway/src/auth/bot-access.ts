import type { CallerContext } from '@sa/contracts';
import { BotAccessDenied, ValidationFailed } from '@sa/errors';

/**
 * Spec part 5, rule 4: a token limited to specific bots must name an allowed chatbotId on
 * knowledge, chat, leads and analytics requests; any other bot id gives 403.
 */
export function checkBotAccess(ctx: CallerContext, chatbotId: string | undefined, where: 'query' | 'body'): void {
  if (!ctx.botIds) return;
  if (!chatbotId) {
    throw new ValidationFailed([{ code: 'required', path: [where, 'chatbotId'], message: 'chatbotId is required for a token restricted to specific bots' }]);
  }
  if (!ctx.botIds.includes(chatbotId)) throw new BotAccessDenied();
}
