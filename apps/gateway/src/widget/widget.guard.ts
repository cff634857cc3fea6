import { CanActivate, ExecutionContext, Injectable, SetMetadata, UseGuards, applyDecorators, createParamDecorator } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BotAccess, enforceDeclaredBotAccess, widgetBot } from '@sa/bot-access';
import type { CallerContext, Scope } from '@sa/contracts';
import type { AuthenticatedRequest } from '../auth/caller.decorator';
import { BOT_ACCESS_KEY, Public, RouteBotAccess } from '../auth/route-access.decorator';
import { validateRouteInput } from '../http/route-input';
import { WidgetAccess } from './widget-access';

export const WIDGET_SCOPES_KEY = 'sa:widget-scopes';

/** Every widget route names its bot in the path, and the caller acts for that bot alone. */
const WIDGET_BOT: RouteBotAccess = { mode: BotAccess.Widget, from: 'path', key: 'botId' };

/**
 * A public visitor-widget route (no token; the global AuthGuard lets it through): the WidgetGuard
 * makes its caller, with these scopes, limited to the bot in the path.
 */
export const WidgetRoute = (...scopes: Scope[]) =>
  applyDecorators(Public(), SetMetadata(WIDGET_SCOPES_KEY, scopes), SetMetadata(BOT_ACCESS_KEY, WIDGET_BOT), UseGuards(WidgetGuard));

/**
 * The widget routes' access, in the order they always had: validation (400, the route's dto()
 * pipes), then WidgetAccess: the bot in the path exists (404) and its workspace is live (402), a
 * session the body names is a widget session of that bot (403 session_forbidden) within its rate
 * limit (429). The caller it makes is limited to that bot (BotAccess.Widget).
 */
@Injectable()
export class WidgetGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: WidgetAccess,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const scopes = this.reflector.get<Scope[] | undefined>(WIDGET_SCOPES_KEY, context.getHandler());
    const bots = this.reflector.get<RouteBotAccess | undefined>(BOT_ACCESS_KEY, context.getHandler());
    if (!scopes?.length || bots?.mode !== BotAccess.Widget) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} is no @WidgetRoute`);

    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest & AuthenticatedRequest>();
    const input = validateRouteInput(context);
    const params = req.params as Record<string, string | undefined>;
    const sessionId = (input.body as { sessionId?: string } | undefined)?.sessionId;
    const caller = await this.access.context(params[bots.key ?? 'botId'] ?? '', req, http.getResponse<FastifyReply>(), sessionId, scopes);
    enforceDeclaredBotAccess(caller, bots, params);
    req.caller = caller;
    return true;
  }
}

/** The caller of a widget route: its context (limited to the widget's bot) and that bot. */
export interface WidgetCallerContext {
  ctx: CallerContext;
  botId: string;
}

/** The caller the WidgetGuard made for this request. */
export const WidgetCaller = createParamDecorator((_: unknown, context: ExecutionContext): WidgetCallerContext => {
  const ctx = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!ctx) throw new Error('@WidgetCaller() used on a route without @WidgetRoute');
  return { ctx, botId: widgetBot(ctx) };
});
