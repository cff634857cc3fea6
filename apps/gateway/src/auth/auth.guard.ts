import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { enforceDeclaredBotAccess } from '@sa/bot-access';
import type { Scope } from '@sa/contracts';
import { EdgeGate, requireScope } from '@sa/edge';
import { validateRouteInput } from '../http/route-input';
import { BOT_ACCESS_KEY, PUBLIC_KEY, RouteBotAccess, SCOPE_KEY } from './route-access.decorator';
import type { AuthenticatedRequest } from './caller.decorator';

/**
 * The global guard. Every route declares @RequireScope (with its bot access) or @Public (a route
 * with neither is refused: fail closed). Order of checks, spec parts 5 and 7 and
 * docs/decisions.md: token (401), live access of the workspace (402 api_locked), rate limit per
 * token (429), scope (403), validation (400, the route's dto() pipes), bot access (403, the
 * route's declaration). The EdgeGate verified the token and counted the request before the body
 * was read; this takes its result.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly gate: EdgeGate,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // HTTP routes only: the gateway's NATS handlers (identity.*) answer other services, not callers.
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(SCOPE_KEY, targets);
    const bots = this.reflector.getAllAndOverride<RouteBotAccess | undefined>(BOT_ACCESS_KEY, targets);
    if (!scope || !bots) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares neither @RequireScope nor @Public`);

    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest & AuthenticatedRequest>();
    const caller = await this.gate.caller(req, http.getResponse<FastifyReply>());
    requireScope(caller, scope);
    req.caller = caller;
    const input = validateRouteInput(context);
    enforceDeclaredBotAccess(caller, bots, bots.from && input[bots.from]);
    return true;
  }
}
