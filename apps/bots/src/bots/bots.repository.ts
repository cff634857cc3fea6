import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { BotSummary, BotView, EnterpriseTier, ModelKind, SlotKind } from '@sa/contracts';
import { hotQuery } from '@sa/db';
import { BotEntity } from './bot.entity';
import { BEHAVIOUR_COLUMNS, BEHAVIOUR_JOIN, behaviourOf, modelChoiceOf } from '../behaviour/behaviour.repository';
import { toConnectionSpec } from '../models/model-connections.repository';

interface BotRow {
  id: string;
  tenant_id: string;
  name: string;
  language: string;
  slot_kind: SlotKind;
  enterprise_plan_tier: EnterpriseTier | null;
  created_at: Date;
}

function toEntity(r: BotRow): BotEntity {
  return Object.assign(new BotEntity(), {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    language: r.language,
    slotKind: r.slot_kind,
    enterprisePlanTier: r.enterprise_plan_tier,
    createdAt: r.created_at,
  });
}

/** Every method takes the tenant id: there is no unscoped read of bots. */
@Injectable()
export class BotsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /**
   * Bots of the tenant, oldest first; limited to `botIds` when given. Constant SQL mapped by hand:
   * this is the hottest read of the service (bench/README.md).
   */
  async list(tenantId: string, botIds: string[] | null, limit: number): Promise<BotEntity[]> {
    const rows: BotRow[] = await this.ds.query(
      `SELECT id, tenant_id, name, language, slot_kind, enterprise_plan_tier, created_at FROM bots.bots
        WHERE tenant_id = $1 AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))
        ORDER BY created_at, id LIMIT $3`,
      [tenantId, botIds, limit],
    );
    return rows.map(toEntity);
  }

  /**
   * `list` as the API shows it (GET /v1/bots, the hottest read of the service): a prepared
   * statement that renders created_at as the API's ISO 8601 UTC text itself (what
   * `Date.toISOString` gives), so no Date is parsed and formatted again per row.
   */
  listViews(tenantId: string, botIds: string[] | null, limit: number): Promise<BotView[]> {
    return hotQuery<BotView>(
      this.ds,
      'bots_list_views',
      `SELECT b.id, b.name, b.slot_kind, b.language, to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at FROM bots.bots b
        WHERE b.tenant_id = $1 AND ($2::uuid[] IS NULL OR b.id = ANY($2::uuid[]))
        ORDER BY b.created_at, b.id LIMIT $3`,
      [tenantId, botIds, limit],
    );
  }

  /** Name, language and behaviour of those of `ids` that are bots of the tenant, in one statement (chat asks on every turn). */
  async summaries(tenantId: string, ids: string[]): Promise<BotSummary[]> {
    if (!ids.length) return [];
    type Row = { id: string; name: string; language: string; instructions: string; fallback_reply: string | null; answer_length: string; starter_questions: string[] };
    const rows = await hotQuery<Row & { model_connection_id: string | null; temperature: number | null; mc_kind: ModelKind | null; mc_base_url: string | null; mc_model: string; mc_key: string | null; mc_updated_at: Date }>(
      this.ds,
      'bots_summaries',
      `SELECT b.id, b.name, b.language, ${BEHAVIOUR_COLUMNS},
          mc.kind AS mc_kind, mc.base_url AS mc_base_url, mc.model AS mc_model, mc.api_key_sealed AS mc_key, mc.updated_at AS mc_updated_at
        FROM bots.bots b ${BEHAVIOUR_JOIN} LEFT JOIN bots.model_connections mc ON mc.id = h.model_connection_id AND mc.tenant_id = b.tenant_id
        WHERE b.tenant_id = $1 AND b.id = ANY($2::uuid[]) ORDER BY b.created_at, b.id`,
      [tenantId, ids],
    );
    return rows.map((r) => {
      const choice = modelChoiceOf(r);
      const connection =
        r.mc_kind && choice.model_connection_id
          ? toConnectionSpec({ id: choice.model_connection_id, kind: r.mc_kind, base_url: r.mc_base_url, model: r.mc_model, api_key_sealed: r.mc_key, updated_at: r.mc_updated_at })
          : null;
      return { id: r.id, name: r.name, language: r.language, behaviour: behaviourOf(r), model: { connection, temperature: choice.temperature } };
    });
  }

  /** Which of `ids` are bots of the tenant. */
  async existing(tenantId: string, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows: { id: string }[] = await this.ds.query(`SELECT id FROM bots.bots WHERE tenant_id = $1 AND id = ANY($2::uuid[])`, [tenantId, ids]);
    return rows.map((r) => r.id);
  }

  /**
   * Serialises bot creation within one workspace for the rest of the transaction, so capacity
   * checks and inserts of concurrent requests cannot interleave.
   */
  async lockTenant(m: EntityManager, tenantId: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7301))`, [tenantId]);
  }

  async countPlanBots(m: EntityManager, tenantId: string): Promise<number> {
    const [row] = await m.query(`SELECT count(*)::int AS n FROM bots.bots WHERE tenant_id = $1 AND slot_kind = 'plan' AND enterprise_plan_tier IS NULL`, [tenantId]);
    return row.n;
  }

  async countByTier(m: EntityManager, tenantId: string): Promise<Record<EnterpriseTier, number>> {
    const rows: { tier: EnterpriseTier; n: number }[] = await m.query(
      `SELECT enterprise_plan_tier AS tier, count(*)::int AS n FROM bots.bots WHERE tenant_id = $1 AND enterprise_plan_tier IS NOT NULL GROUP BY 1`,
      [tenantId],
    );
    const out: Record<EnterpriseTier, number> = { starter: 0, growth: 0, scale: 0 };
    for (const r of rows) out[r.tier] = r.n;
    return out;
  }

  insert(m: EntityManager, bot: Omit<BotEntity, 'id' | 'createdAt'>): Promise<BotEntity> {
    return m.save(m.create(BotEntity, bot));
  }

  /** Renames a bot or changes its language (null: left as is); undefined when it is not a bot of the tenant. */
  async update(tenantId: string, botId: string, change: { name: string | null; language: string | null }): Promise<BotEntity | undefined> {
    const rows: BotRow[] = await this.ds.query(
      // (a CTE: TypeORM answers a bare UPDATE … RETURNING with [rows, count])
      `WITH updated AS (
         UPDATE bots.bots SET name = coalesce($3, name), language = coalesce($4, language)
          WHERE tenant_id = $1 AND id = $2
          RETURNING id, tenant_id, name, language, slot_kind, enterprise_plan_tier, created_at
       )
       SELECT * FROM updated`,
      [tenantId, botId, change.name, change.language],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  /** Lower-cased names of the tenant's bots that start with `prefix` (case-insensitive). */
  async namesStartingWith(tenantId: string, prefix: string): Promise<Set<string>> {
    const rows: { name: string }[] = await this.ds.query(
      `SELECT lower(name) AS name FROM bots.bots WHERE tenant_id = $1 AND left(lower(name), char_length($2)) = lower($2)`,
      [tenantId, prefix],
    );
    return new Set(rows.map((r) => r.name));
  }
}
