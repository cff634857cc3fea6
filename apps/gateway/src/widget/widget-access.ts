import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { CallerContext, Plan, PublicBot, Scope, WIDGET_CHANGED_SUBJECT, WidgetChangedEvent } from '@sa/contracts';
import { ApiLocked, DomainError, NotFound, RateLimited, SessionForbidden } from '@sa/errors';
import { PlanLimit, TokenVerifier, entitlementsOf, hasLiveApiAccess } from '@sa/identity';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { PLAN_LIMITS } from '../auth/auth.tokens';
import type { RateLimiter } from '@sa/edge';

export const WIDGET_RATE_LIMITER = Symbol('WIDGET_RATE_LIMITER');
/** The prefix of every bot's widget routes. */
export const WIDGET_ROUTES = '/widget/v1/bots/';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The public widget routes carry no token: the bot in the path names the workspace. This builds
 * the caller context for them: the bot must exist and its workspace be live, a session the call
 * names must be a widget session of that bot, the client IP and the session are rate-limited, and
 * the context is limited to that one bot, so nothing a visitor sends can reach another bot or
 * workspace. The bot (with its widget settings: allowed origins, look) is cached for 30 s and
 * dropped at once when the bots service publishes `bots.widget.changed` for it.
 */
@Injectable()
export class WidgetAccess implements OnModuleInit, OnModuleDestroy {
  private readonly bots = new LRUCache<string, PublicBot | 'missing'>({ max: 10000, ttl: 30_000 });
  /** Widget sessions known to belong to a bot ("<botId> <sessionId>"). */
  private readonly sessions = new LRUCache<string, true>({ max: 50_000, ttl: 10 * 60_000 });

  constructor(
    private readonly rpc: RpcClient,
    private readonly verifier: TokenVerifier,
    @Inject(WIDGET_RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(PLAN_LIMITS) private readonly planLimits: Record<Plan, PlanLimit>,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  private changes?: Subscription;

  onModuleInit(): void {
    this.changes = this.nc.subscribe(WIDGET_CHANGED_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { botId } = JSON.parse(Buffer.from(msg.data).toString('utf8')) as WidgetChangedEvent;
          if (typeof botId === 'string') this.evict(botId);
        } catch {
          // Not ours: ignore.
        }
      },
    });
  }

  onModuleDestroy(): void {
    this.changes?.unsubscribe();
  }

  /** Forgets the cached bot: its widget settings changed. */
  evict(botId: string): void {
    this.bots.delete(botId);
  }

  async context(botId: string, req: FastifyRequest, reply: FastifyReply, sessionId: string | undefined, scopes: Scope[]): Promise<CallerContext> {
    const bot = await this.bot(botId);
    const workspace = await this.verifier.workspaceById(bot.tenant_id);
    if (!workspace) throw new NotFound('Bot');
    if (!hasLiveApiAccess(workspace)) throw new ApiLocked('This bot is not available right now');
    const ctx: CallerContext = {
      tenantId: bot.tenant_id,
      tokenId: null,
      scopes,
      botIds: [bot.id],
      requestId: String(req.id),
      entitlements: entitlementsOf(workspace, this.planLimits),
    };
    if (sessionId) {
      await this.checkSession(ctx, bot.id, sessionId);
      await this.limit(reply, `widget:session:${bot.id}:${sessionId}`);
    }
    return ctx;
  }

  /**
   * The one check of every widget call that names a session: it must have been minted as a widget
   * session of the bot in the path. Unknown and another bot's get the same answer (403), so ids
   * cannot be probed. Only positive answers are cached: a session never changes bot.
   */
  private async checkSession(ctx: CallerContext, botId: string, sessionId: string): Promise<void> {
    const key = `${botId} ${sessionId}`;
    if (this.sessions.get(key)) return;
    const { widget_session } = await this.rpc.send('chat.widget-session.check', { chatbotId: botId, sessionId }, ctx);
    if (!widget_session) throw new SessionForbidden();
    this.sessions.set(key, true);
  }

  /** The bot a widget route names, with its widget settings (404 when unknown or not a uuid). */
  async bot(botId: string): Promise<PublicBot> {
    if (!UUID.test(botId)) throw new NotFound('Bot');
    let bot = this.bots.get(botId);
    if (!bot) {
      try {
        bot = await this.rpc.send('bots.bot.public', { botId });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'not_found') bot = 'missing';
        else throw err;
      }
      this.bots.set(botId, bot, bot === 'missing' ? { ttl: 5_000 } : undefined);
    }
    if (bot === 'missing') throw new NotFound('Bot');
    return bot;
  }

  private async limit(reply: FastifyReply, key: string): Promise<void> {
    const rate = await this.limiter.hit(key);
    reply.header('x-ratelimit-limit', rate.limit).header('x-ratelimit-remaining', rate.remaining).header('x-ratelimit-reset', rate.resetSeconds);
    if (!rate.allowed) throw new RateLimited(rate.resetSeconds);
  }
}
