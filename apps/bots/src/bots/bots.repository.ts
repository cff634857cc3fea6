import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { EnterpriseTier } from '@sa/contracts';
import { BotEntity } from './bot.entity';

/** Every method takes the tenant id: there is no unscoped read of bots. */
@Injectable()
export class BotsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /** Bots of the tenant, oldest first; limited to `botIds` when given. */
  list(tenantId: string, botIds: string[] | null, limit: number): Promise<BotEntity[]> {
    const q = this.ds
      .getRepository(BotEntity)
      .createQueryBuilder('b')
      .where('b.tenant_id = :tenantId', { tenantId })
      .orderBy('b.created_at', 'ASC')
      .addOrderBy('b.id', 'ASC')
      .limit(limit);
    if (botIds) q.andWhere('b.id = ANY(:botIds)', { botIds });
    return q.getMany();
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

  /** Lower-cased names of the tenant's bots that start with `prefix` (case-insensitive). */
  async namesStartingWith(tenantId: string, prefix: string): Promise<Set<string>> {
    const rows: { name: string }[] = await this.ds.query(
      `SELECT lower(name) AS name FROM bots.bots WHERE tenant_id = $1 AND left(lower(name), char_length($2)) = lower($2)`,
      [tenantId, prefix],
    );
    return new Set(rows.map((r) => r.name));
  }
}
