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
}
