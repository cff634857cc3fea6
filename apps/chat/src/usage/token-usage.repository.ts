import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { TOKEN_USAGE_DAYS, TokenBudgetView, TokenUsageDayView } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { usageMonth } from '../conversations/messages.repository';

/**
 * Token usage (issue 32, item 5): what each answer cost in tokens (chat.messages.prompt_tokens and
 * completion_tokens), the month's sum per workspace (chat.usage.tokens, which the budget is checked
 * against), and the workspace's monthly budget (chat.token_budgets). Every method names the tenant.
 */
@Injectable()
export class TokenUsageRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Adds an answer's tokens to the workspace's month (in the turn's transaction). */
  async add(m: EntityManager, tenantId: string, tokens: number, now: Date): Promise<void> {
    if (tokens <= 0) return;
    await m.query(
      `INSERT INTO chat.usage AS u (tenant_id, month, messages, tokens) VALUES ($1, $2::date, 0, $3)
       ON CONFLICT (tenant_id, month) DO UPDATE SET tokens = u.tokens + EXCLUDED.tokens`,
      [tenantId, usageMonth(now), tokens],
    );
  }

  /** The budget and this month's use; one statement, asked at the start of every turn. */
  async budget(tenantId: string, now: Date): Promise<TokenBudgetView> {
    const month = usageMonth(now);
    const [row] = await queryRows<{ monthly_tokens: string | null; used: string | null }>(
      this.ds,
      `SELECT (SELECT monthly_tokens FROM chat.token_budgets WHERE tenant_id = $1) AS monthly_tokens,
              (SELECT tokens FROM chat.usage WHERE tenant_id = $1 AND month = $2::date) AS used`,
      [tenantId, month],
    );
    return { monthly_tokens: row?.monthly_tokens === null || row?.monthly_tokens === undefined ? null : Number(row.monthly_tokens), used_this_month: Number(row?.used ?? 0), month_start: `${month}T00:00:00.000Z` };
  }

  async setBudget(tenantId: string, monthlyTokens: number | null): Promise<void> {
    if (monthlyTokens === null) await this.ds.query(`DELETE FROM chat.token_budgets WHERE tenant_id = $1`, [tenantId]);
    else {
      await this.ds.query(
        `INSERT INTO chat.token_budgets (tenant_id, monthly_tokens) VALUES ($1, $2)
         ON CONFLICT (tenant_id) DO UPDATE SET monthly_tokens = EXCLUDED.monthly_tokens, updated_at = now()`,
        [tenantId, monthlyTokens],
      );
    }
  }

  /** Tokens per bot and day (UTC) over the last TOKEN_USAGE_DAYS days, today included; newest first. */
  async byDay(tenantId: string, chatbotId: string | undefined, now: Date): Promise<TokenUsageDayView[]> {
    const rows = await queryRows<{ day: string; chatbot_id: string | null; prompt_tokens: string; completion_tokens: string; answers: number }>(
      this.ds,
      `SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, chatbot_id,
              sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, count(*)::int AS answers
         FROM chat.messages
        WHERE tenant_id = $1 AND role = 'assistant' AND prompt_tokens IS NOT NULL
          AND created_at >= (date_trunc('day', $3::timestamptz AT TIME ZONE 'UTC') - make_interval(days => $4 - 1)) AT TIME ZONE 'UTC'
          AND ($2::uuid IS NULL OR chatbot_id = $2::uuid)
        GROUP BY 1, 2
        ORDER BY 1 DESC, 2`,
      [tenantId, chatbotId ?? null, now.toISOString(), TOKEN_USAGE_DAYS],
    );
    return rows.map((r) => ({ day: r.day, chatbot_id: r.chatbot_id, prompt_tokens: Number(r.prompt_tokens), completion_tokens: Number(r.completion_tokens), answers: r.answers }));
  }
}
