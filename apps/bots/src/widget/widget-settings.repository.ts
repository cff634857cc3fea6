import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DEFAULT_WIDGET_THEME, WidgetPosition } from '@sa/contracts';

/** A bot with its widget settings (defaults when it has no row). */
export interface WidgetSettingsRow {
  chatbot_id: string;
  tenant_id: string;
  name: string;
  language: string;
  allowed_origins: string[];
  color: string;
  position: WidgetPosition;
  greeting: string | null;
  launcher_text: string | null;
  /** Sealed (SecretBox); null: none. */
  identity_secret: string | null;
  identity_secret_created_at: Date | null;
  updated_at: Date | null;
  /** From the bot's behaviour (issue 32). */
  starter_questions: string[];
}

export type StoredWidgetSettings = Pick<WidgetSettingsRow, 'allowed_origins' | 'color' | 'position' | 'greeting' | 'launcher_text'>;

const SELECT = `
  SELECT b.id AS chatbot_id, b.tenant_id, b.name, b.language,
         coalesce(w.allowed_origins, '{}') AS allowed_origins,
         coalesce(w.color, $COLOR) AS color, coalesce(w.position, $POSITION) AS position,
         w.greeting, w.launcher_text, w.identity_secret, w.identity_secret_created_at, w.updated_at,
         coalesce(h.starter_questions, '{}') AS starter_questions
    FROM bots.bots b LEFT JOIN bots.widget_settings w ON w.chatbot_id = b.id LEFT JOIN bots.behaviour h ON h.chatbot_id = b.id`
  .replace('$COLOR', `'${DEFAULT_WIDGET_THEME.color}'`)
  .replace('$POSITION', `'${DEFAULT_WIDGET_THEME.position}'`);

/** bots.widget_settings: every read but the public one takes the tenant id. */
@Injectable()
export class WidgetSettingsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async find(tenantId: string, botId: string): Promise<WidgetSettingsRow | null> {
    const rows: WidgetSettingsRow[] = await this.ds.query(`${SELECT} WHERE b.id = $1 AND b.tenant_id = $2`, [botId, tenantId]);
    return rows[0] ?? null;
  }

  /** For the public widget routes: the bot id alone names it. */
  async findPublic(botId: string): Promise<WidgetSettingsRow | null> {
    const rows: WidgetSettingsRow[] = await this.ds.query(`${SELECT} WHERE b.id = $1`, [botId]);
    return rows[0] ?? null;
  }

  /** Writes the settings of a bot of the tenant (the caller checked it), keeping its secret. */
  async save(tenantId: string, botId: string, s: StoredWidgetSettings): Promise<void> {
    await this.ds.query(
      `INSERT INTO bots.widget_settings (chatbot_id, tenant_id, allowed_origins, color, position, greeting, launcher_text)
       VALUES ($1, $2, $3::text[], $4, $5, $6, $7)
       ON CONFLICT (chatbot_id) DO UPDATE SET allowed_origins = EXCLUDED.allowed_origins, color = EXCLUDED.color, position = EXCLUDED.position,
         greeting = EXCLUDED.greeting, launcher_text = EXCLUDED.launcher_text, updated_at = clock_timestamp()`,
      [botId, tenantId, s.allowed_origins, s.color, s.position, s.greeting, s.launcher_text],
    );
  }

  /** Replaces the bot's identity secret (sealed); returns when it was set. */
  async saveSecret(tenantId: string, botId: string, sealed: string): Promise<Date> {
    const rows: { created_at: Date }[] = await this.ds.query(
      `INSERT INTO bots.widget_settings (chatbot_id, tenant_id, color, position, identity_secret, identity_secret_created_at)
       VALUES ($1, $2, $3, $4, $5, clock_timestamp())
       ON CONFLICT (chatbot_id) DO UPDATE SET identity_secret = EXCLUDED.identity_secret, identity_secret_created_at = EXCLUDED.identity_secret_created_at,
         updated_at = clock_timestamp()
       RETURNING identity_secret_created_at AS created_at`,
      [botId, tenantId, DEFAULT_WIDGET_THEME.color, DEFAULT_WIDGET_THEME.position, sealed],
    );
    return rows[0]!.created_at;
  }
}
