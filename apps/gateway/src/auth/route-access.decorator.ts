import { SetMetadata, applyDecorators } from '@nestjs/common';
import type { BotAccessDeclaration } from '@sa/bot-access';
import type { Scope } from '@sa/contracts';
import type { RequestPart } from '../http/dto.pipe';

export const SCOPE_KEY = 'sa:required-scope';
export const PUBLIC_KEY = 'sa:public';
export const BOT_ACCESS_KEY = 'sa:bot-access';

/**
 * What a route does with bots (libs/bot-access): its mode and, when the request names a bot, the
 * part of the request and the member that hold the bot id (default chatbotId).
 */
export interface RouteBotAccess extends BotAccessDeclaration {
  from?: RequestPart;
}

/**
 * The route needs a live, unexpired token with this scope (spec part 5) and declares its bot
 * access; the AuthGuard enforces both, the bot access after validation, e.g.
 * `@RequireScope('kb:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } })`.
 */
export const RequireScope = (scope: Scope, access: { botAccess: RouteBotAccess }) =>
  applyDecorators(SetMetadata(SCOPE_KEY, scope), SetMetadata(BOT_ACCESS_KEY, access.botAccess));

/** The route needs no token (GET /v1/openapi.json, health probes). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
