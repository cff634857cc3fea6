import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CallerContext } from '@sa/contracts';
import { BadRequest, DomainError, RateLimited } from '@sa/errors';
import { bearerSecret } from './bearer';
import type { EdgeAuthenticator } from './edge-auth';
import { sendError } from './http-errors';
import type { RateDecision, RateLimiter } from './rate-limiter';

export interface RouteLimit {
  limiter: RateLimiter;
  key: string;
}

export interface EdgeGateOptions {
  /** Paths never counted (health probes). */
  exemptPaths?: readonly string[];
  /** Routes with a limit of their own, decided on the path alone (the widget's per-address limit). */
  routeLimit?: (req: FastifyRequest, path: string) => RouteLimit | null;
}

type Verdict = { caller: CallerContext } | { error: unknown };

export function setRateHeaders(reply: FastifyReply, rate: RateDecision): void {
  void reply.header('x-ratelimit-limit', rate.limit).header('x-ratelimit-remaining', rate.remaining).header('x-ratelimit-reset', rate.resetSeconds);
}

/** How many times a header was sent (Node keeps only the first Authorization of several). */
function timesSent(rawHeaders: string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) n++;
  return n;
}

/**
 * Every request counts toward a rate limit before its body is read, so every refusal that follows
 * (a body that is not JSON or nested too deeply, validation, 404, even a 5xx) is counted too:
 * - a route with a limit of its own (the widget: per client address) counts there;
 * - a request with a valid token counts toward the token's budget (`token:<id>`, shared by REST
 *   and MCP); the token is verified here and the result kept for the route (`caller`);
 * - anything else (no token, a token that is not valid, unknown routes, OPTIONS) counts per client
 *   address (`anon:ip:<address>`, shared by both edges with Redis).
 * Over the limit is 429 at once. Two Authorization headers are 400 (after counting).
 */
export class EdgeGate {
  private readonly verdicts = new WeakMap<object, Verdict>();
  private readonly exempt: Set<string>;

  constructor(
    private readonly auth: EdgeAuthenticator,
    private readonly anonymous: RateLimiter,
    private readonly options: EdgeGateOptions = {},
  ) {
    this.exempt = new Set(options.exemptPaths ?? ['/healthz', '/readyz']);
  }

  install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', async (req, reply) => {
      if (reply.sent) return reply;
      const refusal = await this.admit(req, reply);
      if (!refusal) return;
      sendError(reply, refusal);
      return reply;
    });
  }

  /**
   * The caller of a route that needs a token: the one the gate verified, the error it got
   * (401/402/503), or 401 when no token was sent.
   */
  async caller(req: FastifyRequest, reply: FastifyReply): Promise<CallerContext> {
    const verdict = this.verdicts.get(req.raw);
    if (verdict && 'error' in verdict) throw verdict.error;
    if (verdict) return verdict.caller;
    // A path the gate does not authenticate on (exempt, or with a limit of its own).
    const { caller, rate } = await this.auth.authenticate(bearerSecret(req.headers.authorization), String(req.id));
    setRateHeaders(reply, rate);
    if (!rate.allowed) throw new RateLimited(rate.resetSeconds);
    return caller;
  }

  private async admit(req: FastifyRequest, reply: FastifyReply): Promise<DomainError | null> {
    const path = req.url.split('?')[0];
    if (this.exempt.has(path)) return null;
    const repeated = timesSent(req.raw.rawHeaders, 'authorization') > 1 ? new BadRequest('Send one Authorization header, not several') : null;
    const own = this.options.routeLimit?.(req, path);
    if (own) return (await this.count(reply, own)) ?? repeated;
    if (req.headers.authorization !== undefined && !repeated) {
      try {
        const { caller, rate } = await this.auth.authenticate(bearerSecret(req.headers.authorization), String(req.id));
        setRateHeaders(reply, rate);
        this.verdicts.set(req.raw, { caller });
        return rate.allowed ? null : new RateLimited(rate.resetSeconds);
      } catch (error) {
        this.verdicts.set(req.raw, { error });
      }
    }
    return (await this.count(reply, { limiter: this.anonymous, key: `anon:ip:${req.ip}` })) ?? repeated;
  }

  private async count(reply: FastifyReply, { limiter, key }: RouteLimit): Promise<DomainError | null> {
    const rate = await limiter.hit(key);
    setRateHeaders(reply, rate);
    return rate.allowed ? null : new RateLimited(rate.resetSeconds);
  }
}
