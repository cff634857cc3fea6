import { Injectable } from '@nestjs/common';
import { BotAccess, enforceBotAccess, visibleBots } from '@sa/bot-access';
import { BOT_NAME_MAX, BotSummary, BotView, CallerContext, CheckBotsReply, CreateBotRequest, CreatedBotView, ENTERPRISE_TIERS, EnterpriseTier, UpdateBotRequest, canonicalLanguage } from '@sa/contracts';
import { BotNameTaken, NotFound, PlanCapacityExhausted, TierCapacityUnavailable } from '@sa/errors';
import { isUniqueViolation } from '@sa/db';
import { Outbox } from '@sa/events';
import { BotEntity } from './bot.entity';
import { BotsRepository } from './bots.repository';
import { suggestName } from './suggest-name';

export const MAX_BOTS_LISTED = 1000;
export const DEFAULT_BOT_LANGUAGE = 'en';

export function toBotView(b: BotEntity): BotView {
  return { id: b.id, name: b.name, slot_kind: b.slotKind, language: b.language, created_at: b.createdAt.toISOString() };
}

@Injectable()
export class BotsService {
  constructor(
    private readonly bots: BotsRepository,
    private readonly outbox: Outbox,
  ) {}

  async list(ctx: CallerContext): Promise<BotView[]> {
    return this.bots.listViews(ctx.tenantId, visibleBots(ctx), MAX_BOTS_LISTED);
  }

  /** Which of the given ids are bots of the caller's workspace (ownership checks of other services). */
  async check(ctx: CallerContext, ids: string[]): Promise<CheckBotsReply> {
    return { found: await this.bots.existing(ctx.tenantId, [...new Set(ids)].slice(0, 1000)) };
  }

  /** Name and language of the caller's bots among `ids` (for chat: language fallback, prompts). */
  async describe(ctx: CallerContext, ids: string[]): Promise<BotSummary[]> {
    return this.bots.summaries(ctx.tenantId, [...new Set(ids)].slice(0, 1000));
  }

  /**
   * Spec part 4, POST /bots: restricted tokens cannot create bots; enterprise workspaces need a
   * tier with a free slot (403 with available_slots); other plans need a free plan slot (402);
   * a name already used in the workspace gives 409 with a free suggested_name.
   */
  async create(ctx: CallerContext, req: CreateBotRequest): Promise<CreatedBotView> {
    enforceBotAccess(ctx, BotAccess.NewBot);
    const language = req.language ? canonicalLanguage(req.language)! : DEFAULT_BOT_LANGUAGE;
    const enterprise = ctx.entitlements.plan === 'enterprise';
    try {
      const bot = await this.bots.transaction(async (m) => {
        await this.bots.lockTenant(m, ctx.tenantId);
        let tier: EnterpriseTier | null = null;
        if (enterprise) {
          const used = await this.bots.countByTier(m, ctx.tenantId);
          const available = Object.fromEntries(ENTERPRISE_TIERS.map((t) => [t, Math.max(0, (ctx.entitlements.tierSlots[t] ?? 0) - used[t])])) as Record<EnterpriseTier, number>;
          if (!req.enterprise_plan_tier) {
            throw new TierCapacityUnavailable('Enterprise workspaces must choose an enterprise_plan_tier (starter, growth or scale) with a free slot', available);
          }
          if (available[req.enterprise_plan_tier] < 1) {
            throw new TierCapacityUnavailable(`No free slot in the ${req.enterprise_plan_tier} tier`, available);
          }
          tier = req.enterprise_plan_tier;
        } else {
          const used = await this.bots.countPlanBots(m, ctx.tenantId);
          if (used >= ctx.entitlements.botSlots) {
            throw new PlanCapacityExhausted(`The ${ctx.entitlements.plan} plan allows ${ctx.entitlements.botSlots} bot(s); all are in use`, { bot_slots: ctx.entitlements.botSlots });
          }
        }
        const created = await this.bots.insert(m, { tenantId: ctx.tenantId, name: req.name, language, slotKind: 'plan', enterprisePlanTier: tier });
        await this.outbox.add(m, 'bot.created', ctx.tenantId, {
          bot_id: created.id,
          name: created.name,
          language: created.language,
          slot_kind: created.slotKind,
          enterprise_plan_tier: created.enterprisePlanTier,
        });
        return created;
      });
      return { id: bot.id, name: bot.name, language: bot.language, created_at: bot.createdAt.toISOString() };
    } catch (err) {
      throw await this.nameTakenOr(ctx, req.name, err);
    }
  }

  /**
   * Issue 19 (console bot settings): a new name (409 with suggested_name when another bot has it)
   * or default reply language. Another workspace's bot is 404; a restricted caller only its bots.
   */
  async update(ctx: CallerContext, req: UpdateBotRequest): Promise<BotView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.botId);
    const language = req.language ? canonicalLanguage(req.language)! : null;
    try {
      const bot = await this.bots.update(ctx.tenantId, req.botId, { name: req.name ?? null, language });
      if (!bot) throw new NotFound('Bot');
      return toBotView(bot);
    } catch (err) {
      throw await this.nameTakenOr(ctx, req.name ?? '', err);
    }
  }

  /** A duplicate name becomes 409 with a free suggested_name; anything else is returned as is. */
  private async nameTakenOr(ctx: CallerContext, name: string, err: unknown): Promise<unknown> {
    if (!isUniqueViolation(err, 'bots_tenant_name_key')) return err;
    // Suggestions may shorten the base to fit the suffix (at most " 9999"): look up that shortest prefix.
    const base = name.trim().replace(/\s+\d+$/, '') || name;
    const taken = await this.bots.namesStartingWith(ctx.tenantId, [...base].slice(0, BOT_NAME_MAX - 5).join('').trimEnd());
    return new BotNameTaken(name, suggestName(name, taken));
  }
}
