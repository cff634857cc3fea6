import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newWidgetSessionId } from './widget-session-id';

/** chat.widget_sessions: the sessions minted for the visitors of each bot. Every method names the tenant. */
@Injectable()
export class WidgetSessionsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Records `sessionId` (from newWidgetSessionId) as a widget session of the bot. */
  async add(tenantId: string, chatbotId: string, sessionId: string, m: EntityManager = this.ds.manager): Promise<void> {
    await m.query(`INSERT INTO chat.widget_sessions (session_id, tenant_id, chatbot_id) VALUES ($1, $2, $3)`, [sessionId, tenantId, chatbotId]);
  }

  /** Mints and records a new widget session of the bot. */
  async mint(tenantId: string, chatbotId: string): Promise<string> {
    const sessionId = newWidgetSessionId();
    await this.add(tenantId, chatbotId, sessionId);
    return sessionId;
  }

  /** True only when `sessionId` was minted as a widget session of this bot of this workspace. */
  async isWidgetSession(tenantId: string, chatbotId: string, sessionId: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(`SELECT 1 FROM chat.widget_sessions WHERE session_id = $1 AND tenant_id = $2 AND chatbot_id = $3`, [sessionId, tenantId, chatbotId]);
    return rows.length > 0;
  }

  /** Marks the widget session's visitor as verified as `externalUserId`; false when it is no widget session of the bot. */
  async verify(tenantId: string, chatbotId: string, sessionId: string, externalUserId: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      // (a CTE: TypeORM answers a bare UPDATE … RETURNING with [rows, count])
      `WITH updated AS (
         UPDATE chat.widget_sessions SET external_user_id = $4, verified_at = clock_timestamp()
          WHERE session_id = $1 AND tenant_id = $2 AND chatbot_id = $3 RETURNING 1
       )
       SELECT * FROM updated`,
      [sessionId, tenantId, chatbotId, externalUserId],
    );
    return rows.length > 0;
  }

  /** The verified visitor of a widget session (identified with a valid user hash); null: none, or not a widget session. */
  async verifiedUser(tenantId: string, sessionId: string): Promise<string | null> {
    const rows: { external_user_id: string | null }[] = await this.ds.query(`SELECT external_user_id FROM chat.widget_sessions WHERE session_id = $1 AND tenant_id = $2`, [sessionId, tenantId]);
    return rows[0]?.external_user_id ?? null;
  }
}
