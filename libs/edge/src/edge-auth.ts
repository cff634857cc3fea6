import type { CallerContext, Plan, Scope } from '@sa/contracts';
import { ApiLocked, InsufficientScope, Unauthorized } from '@sa/errors';
import { PlanLimit, VerifiedToken, entitlementsOf, hasLiveApiAccess } from '@sa/identity';
import type { RateDecision, RateLimiter } from './rate-limiter';

/**
 * One kind of bearer credential. Today the only one is the workspace API token (`mgpt_…`,
 * TokenVerifier); an OAuth-issued access token for MCP connections (spec part 5, rule 7) is added
 * as another verifier that recognises its own format and resolves to the same token-shaped grant
 * (scopes, bot restriction, workspace), so nothing downstream changes.
 */
export interface BearerVerifier {
  accepts(secret: string): boolean;
  verify(secret: string): Promise<VerifiedToken>;
  /** The rate-limit key of a grant this verifier resolved (default `token:<id>`). */
  rateKey?(id: string): string;
}

export interface EdgeCaller {
  caller: CallerContext;
  /** The rate-limit decision for this request; the caller sends its headers and refuses when not allowed. */
  rate: RateDecision;
}

/**
 * The REST gateway's and the MCP server's one way to turn a bearer secret into a caller, in the
 * order of spec parts 5 and 7: token (401 Unauthorized), live access of the workspace
 * (402 api_locked), then the per-token rate limit (decided here, refused by the caller so it can
 * send the rate headers). Both edges share the limiter keys, so a token has one budget.
 */
export class EdgeAuthenticator {
  constructor(
    private readonly verifiers: BearerVerifier[],
    private readonly limiter: RateLimiter,
    private readonly planLimits: Record<Plan, PlanLimit>,
  ) {}

  async authenticate(secret: string, requestId: string): Promise<EdgeCaller> {
    const verifier = this.verifiers.find((v) => v.accepts(secret));
    if (!verifier) throw new Unauthorized();
    const { token, workspace } = await verifier.verify(secret);
    if (!hasLiveApiAccess(workspace)) throw new ApiLocked();
    const rate = await this.limiter.hit(verifier.rateKey?.(token.id) ?? `token:${token.id}`);
    return {
      rate,
      caller: {
        tenantId: workspace.id,
        tokenId: token.id,
        scopes: token.scopes,
        botIds: token.botIds,
        requestId,
        entitlements: entitlementsOf(workspace, this.planLimits),
      },
    };
  }
}

/** Spec part 5, rule 3: a missing scope is 403 insufficient_scope. */
export function requireScope(caller: CallerContext, scope: Scope): void {
  if (!caller.scopes.includes(scope)) throw new InsufficientScope(scope);
}
