import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Plan, Scope } from '@sa/contracts';
import { ApiLocked, InsufficientScope, RateLimited, Unauthorized } from '@sa/errors';
import { PlanLimit, TokenVerifier, entitlementsOf, hasLiveApiAccess } from '@sa/identity';
import { RATE_LIMITER, PLAN_LIMITS } from './auth.tokens';
import type { RateLimiter } from '../rate-limit/rate-limiter';
import { PUBLIC_KEY, SCOPE_KEY } from './route-access.decorator';
import type { AuthenticatedRequest } from './caller.decorator';

/** Extracts the secret of `Authorization: Bearer <token>`; anything else is a 401. */
export function bearerSecret(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^Bearer[ ]+(\S+)\s*$/i.exec(value) : null;
  if (!match) throw new Unauthorized('Send the API token as "Authorization: Bearer <token>"');
  return match[1];
}

/**
 * The global guard. Every route declares @RequireScope or @Public (a route with neither is
 * refused: fail closed). Order of checks, spec parts 5 and 7: token (401), live access of the
 * workspace (402 api_locked), rate limit per token (429), scope (403).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: TokenVerifier,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(PLAN_LIMITS) private readonly planLimits: Record<Plan, PlanLimit>,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(SCOPE_KEY, targets);
    if (!scope) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares neither @RequireScope nor @Public`);

    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest & AuthenticatedRequest>();
    const reply = http.getResponse<FastifyReply>();

    const { token, workspace } = await this.verifier.verify(bearerSecret(req.headers.authorization));
    if (!hasLiveApiAccess(workspace)) throw new ApiLocked();

    const rate = await this.limiter.hit(`token:${token.id}`);
    reply.header('x-ratelimit-limit', rate.limit).header('x-ratelimit-remaining', rate.remaining).header('x-ratelimit-reset', rate.resetSeconds);
    if (!rate.allowed) throw new RateLimited(rate.resetSeconds);

    if (!token.scopes.includes(scope)) throw new InsufficientScope(scope);

    req.caller = {
      tenantId: workspace.id,
      tokenId: token.id,
      scopes: token.scopes,
      botIds: token.botIds,
      requestId: String(req.id),
      entitlements: entitlementsOf(workspace, this.planLimits),
    };
    return true;
  }
}
