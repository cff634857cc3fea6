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
 * docs/decisions/api.md: token (401), live access of the workspace (402 api_locked), rate limit per
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

  /** What a handler declares, read from its metadata once (it never changes at run time). */
  private readonly declarations = new WeakMap<object, WeakMap<object, 'public' | { scope: Scope; bots: RouteBotAccess }>>();

  private declarationOf(context: ExecutionContext): 'public' | { scope: Scope; bots: RouteBotAccess } {
    const handler = context.getHandler();
    const cls = context.getClass();
    let ofClass = this.declarations.get(cls);
    if (!ofClass) this.declarations.set(cls, (ofClass = new WeakMap()));
    let declared = ofClass.get(handler);
    if (!declared) {
      const targets = [handler, cls];
      const scope = this.reflector.getAllAndOverride<Scope | undefined>(SCOPE_KEY, targets);
      const bots = this.reflector.getAllAndOverride<RouteBotAccess | undefined>(BOT_ACCESS_KEY, targets);
      if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) declared = 'public';
      else if (scope && bots) declared = { scope, bots };
      else throw new Error(`route ${cls.name}.${handler.name} declares neither @RequireScope nor @Public`);
      ofClass.set(handler, declared);
    }
    return declared;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // HTTP routes only: the gateway's NATS handlers (identity.*) answer other services, not callers.
    if (context.getType() !== 'http') return true;
    const declared = this.declarationOf(context);
    if (declared === 'public') return true;
    const { scope, bots } = declared;

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
