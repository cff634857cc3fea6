import type { CallerContext } from '@sa/contracts';
import { BotAccessDenied } from '@sa/errors';

/**
 * The bot-access policy (spec part 5, rules 2 and 4): what a caller limited to some bots
 * (`ctx.botIds`; null = every bot of the workspace) may do with a bot. Every REST route and MCP tool
 * declares one of these modes, the edges enforce the declaration, and the services check again
 * through the same function, enforceBotAccess (docs/decisions/api.md, "Issue 15: one bot-access policy").
 */
export const BotAccess = {
  /**
   * A restricted caller must name one of its bots: leaving the bot out is 403 like naming another
   * one. An unrestricted caller may leave it out. Knowledge, chat, leads, analytics.
   */
  MustName: 'must-name',
  /**
   * Naming a bot is optional; a named bot must be one of a restricted caller's bots (403). Without
   * one, what is listed is limited to the caller's bots (visibleBots). Bots, conversations, bookings.
   */
  MayName: 'may-name',
  /**
   * The request names a thing of a bot (a session, a booking), not the bot: the service that reads
   * the thing refuses it (403) when its bot is not one of a restricted caller's bots.
   */
  OfResource: 'of-resource',
  /** The request makes a new bot, which cannot be one of a restricted caller's bots: only a caller for every bot may (rule 2). */
  NewBot: 'new-bot',
  /** A visitor widget's call: the caller acts for exactly one bot (the widget's; ctx.botIds = [it]) and may name only that bot. */
  Widget: 'widget',
} as const;

export type BotAccessMode = (typeof BotAccess)[keyof typeof BotAccess];

export const BOT_ACCESS_MODES: readonly BotAccessMode[] = Object.values(BotAccess);

/** Where a request names its bot: a part of an HTTP request, or an MCP tool's arguments. */
export type BotIdSource = 'body' | 'query' | 'path' | 'argument';

/** What a route or a tool declares: its mode and, when it names a bot, where. */
export interface BotAccessDeclaration {
  mode: BotAccessMode;
  /** Where the request names the bot; absent when it names none. */
  from?: BotIdSource;
  /** The member (or path parameter) holding the bot id; default `chatbotId`. */
  key?: string;
}

/** A member or path parameter named like this holds a bot id (chatbotId, botId, chatbot_id, botIds …). */
export const BOT_ID_NAME = /^(chat)?_?bot_?ids?$/i;

export const DEFAULT_BOT_ID_KEY = 'chatbotId';

/** Whether the caller may use this bot. A restricted caller may use only its own bots, and no bot (null) is not one of them. */
export function mayUseBot(ctx: Pick<CallerContext, 'botIds'>, botId: string | null | undefined): boolean {
  return !ctx.botIds || (!!botId && ctx.botIds.includes(botId));
}

/** How a refusal names what was asked for: where the bot id was missing (MustName) or what was refused (OfResource). */
export interface BotAccessDetail {
  /** Added to MustName's message when the bot id is missing ("… chatbotId (query)"). */
  from?: BotIdSource;
  /** OfResource's refusal: "This token may not access <what>" (default "that bot"). */
  what?: string;
}

/**
 * The one check of the policy: throws BotAccessDenied (403 bot_access_denied) when the caller may
 * not do this with `botId` under `mode`. `botId` is the bot the request names (MustName, MayName,
 * Widget), the bot of the thing it names (OfResource), or nothing (NewBot).
 */
export function enforceBotAccess(ctx: Pick<CallerContext, 'botIds'>, mode: BotAccessMode, botId?: string | null, detail: BotAccessDetail = {}): void {
  switch (mode) {
    case BotAccess.MustName:
      if (ctx.botIds && !botId) throw new BotAccessDenied(`A token restricted to specific bots must send an allowed chatbotId${detail.from ? ` (${detail.from})` : ''}`);
      if (!mayUseBot(ctx, botId)) throw new BotAccessDenied();
      return;
    case BotAccess.MayName:
      if (botId && !mayUseBot(ctx, botId)) throw new BotAccessDenied();
      return;
    case BotAccess.OfResource:
      if (!mayUseBot(ctx, botId)) throw new BotAccessDenied(`This token may not access ${detail.what ?? 'that bot'}`);
      return;
    case BotAccess.NewBot:
      if (ctx.botIds) throw new BotAccessDenied('A token restricted to specific bots cannot create bots');
      return;
    case BotAccess.Widget:
      if (widgetBot(ctx) !== botId) throw new BotAccessDenied();
      return;
  }
}

/**
 * Enforces a route's or a tool's declaration on its validated input (`named`: the request part or
 * the arguments the declaration points at). OfResource is left to the service that reads the thing:
 * the edge does not know its bot.
 */
export function enforceDeclaredBotAccess(ctx: Pick<CallerContext, 'botIds'>, declared: BotAccessDeclaration, named: unknown): void {
  if (declared.mode === BotAccess.OfResource) return;
  const value = declared.from && named && typeof named === 'object' ? (named as Record<string, unknown>)[declared.key ?? DEFAULT_BOT_ID_KEY] : undefined;
  enforceBotAccess(ctx, declared.mode, typeof value === 'string' ? value : undefined, { from: declared.from });
}

/** The bots a listing is limited to when the request names none (MayName): the caller's bots, or null for every bot. */
export function visibleBots(ctx: Pick<CallerContext, 'botIds'>): string[] | null {
  return ctx.botIds ?? null;
}

/** The bot a widget caller acts for (ctx.botIds = [it]); 403 for a caller that is not limited to exactly one bot. */
export function widgetBot(ctx: Pick<CallerContext, 'botIds'>): string {
  if (ctx.botIds?.length !== 1) throw new BotAccessDenied('Widget requests must name exactly one bot');
  return ctx.botIds[0];
}

/** A declaration as the route and tool listings show it: "must-name (query chatbotId)". */
export function describeBotAccess(declared: BotAccessDeclaration | undefined): string {
  if (!declared) return 'none';
  return declared.from ? `${declared.mode} (${declared.from} ${declared.key ?? DEFAULT_BOT_ID_KEY})` : declared.mode;
}
