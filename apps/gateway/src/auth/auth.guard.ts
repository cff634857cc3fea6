import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '@sa/contracts';
import { EdgeGate, requireScope } from '@sa/edge';
import { PUBLIC_KEY, SCOPE_KEY } from './route-access.decorator';
import type { AuthenticatedRequest } from './caller.decorator';

/**
 * The global guard. Every route declares @RequireScope or @Public (a route with neither is
 * refused: fail closed). Order of checks, spec parts 5 and 7: token (401), live access of the
 * workspace (402 api_locked), rate limit per token (429), scope (403). The EdgeGate verified the
 * token and counted the request before the body was read; this takes its result.
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
    if (!scope) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares neither @RequireScope nor @Public`);

    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest & AuthenticatedRequest>();
    const caller = await this.gate.caller(req, http.getResponse<FastifyReply>());
    requireScope(caller, scope);
    req.caller = caller;
    return true;
  }
}
