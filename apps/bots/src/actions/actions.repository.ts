import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ActionSpec, ActionView, BotActionSettingsView, DEFAULT_ACTION_SETTINGS } from '@sa/contracts';

/** A stored action: what chat gets of it (ActionSpec, header values sealed, never opened here), its bot, whether it is on, and when. */
export interface ActionRow extends Omit<ActionSpec, 'updated_at' | 'status_text'> {
  chatbot_id: string;
  status_text: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

/** What is written of an action (insert and update alike). */
export type ActionFields = Omit<ActionRow, 'id' | 'chatbot_id' | 'created_at' | 'updated_at'>;

export function toActionView(r: ActionRow): ActionView {
  return {
    id: r.id,
    bot_id: r.chatbot_id,
    name: r.name,
    description: r.description,
    method: r.method,
    url: r.url,
    parameters: r.parameters,
    // Every stored header has a value (sealed): the names are all a view shows.
    headers: r.header_names.map((name) => ({ name, has_value: r.headers_sealed !== null })),
    confirm: r.confirm,
    verified_only: r.verified_only,
    user_id_param: r.user_id_param,
    status_text: r.status_text,
    enabled: r.enabled,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

export function toActionSpec(r: ActionRow): ActionSpec {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    method: r.method,
    url: r.url,
    parameters: r.parameters,
    header_names: r.header_names,
    headers_sealed: r.headers_sealed,
    confirm: r.confirm,
    verified_only: r.verified_only,
    user_id_param: r.user_id_param,
    status_text: r.status_text,
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

const COLUMNS = `a.id, a.chatbot_id, a.name, a.description, a.method, a.url, a.parameters, a.header_names, a.headers_sealed,
  a.confirm, a.verified_only, a.user_id_param, a.status_text, a.enabled, a.created_at, a.updated_at`;

interface SettingsRow {
  max_calls_per_turn: number;
  builtin_booking: boolean;
  builtin_lead: boolean;
  builtin_handoff: boolean;
}

/** The settings of a bot: its row, or the defaults. */
function settingsOf(r: SettingsRow | undefined): BotActionSettingsView {
  if (!r) return { max_calls_per_turn: DEFAULT_ACTION_SETTINGS.max_calls_per_turn, builtins: { ...DEFAULT_ACTION_SETTINGS.builtins } };
  return { max_calls_per_turn: r.max_calls_per_turn, builtins: { booking: r.builtin_booking, lead: r.builtin_lead, handoff: r.builtin_handoff } };
}

/**
 * bots.actions and bots.action_settings: every statement takes the tenant id, and the bot's id
 * (the bot is the tenant's: botExists, or the bot lock of a create).
 */
@Injectable()
export class ActionsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async botExists(tenantId: string, botId: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(`SELECT 1 FROM bots.bots WHERE id = $1 AND tenant_id = $2`, [botId, tenantId]);
    return rows.length > 0;
  }

  list(tenantId: string, botId: string, opts: { enabledOnly?: boolean } = {}): Promise<ActionRow[]> {
    return this.ds.query(
      `SELECT ${COLUMNS} FROM bots.actions a WHERE a.tenant_id = $1 AND a.chatbot_id = $2 ${opts.enabledOnly ? 'AND a.enabled' : ''} ORDER BY a.created_at, a.id`,
      [tenantId, botId],
    );
  }

  async find(tenantId: string, botId: string, id: string): Promise<ActionRow | null> {
    const rows: ActionRow[] = await this.ds.query(`SELECT ${COLUMNS} FROM bots.actions a WHERE a.tenant_id = $1 AND a.chatbot_id = $2 AND a.id = $3`, [tenantId, botId, id]);
    return rows[0] ?? null;
  }

  /**
   * Inserts an action unless the bot has `max` already (then null). The bot's row is locked, so
   * two creates at once cannot both pass the count; undefined: no such bot of the tenant.
   */
  async insert(tenantId: string, botId: string, a: ActionFields, max: number): Promise<string | null | undefined> {
    return this.ds.transaction(async (tx: EntityManager) => {
      const bot: unknown[] = await tx.query(`SELECT 1 FROM bots.bots WHERE id = $1 AND tenant_id = $2 FOR UPDATE`, [botId, tenantId]);
      if (!bot.length) return undefined;
      const [{ n }]: { n: number }[] = await tx.query(`SELECT count(*)::int AS n FROM bots.actions WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
      if (n >= max) return null;
      const [r]: { id: string }[] = await tx.query(
        `INSERT INTO bots.actions (chatbot_id, tenant_id, name, description, method, url, parameters, header_names, headers_sealed, confirm, verified_only, user_id_param, enabled, status_text)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::text[], $9, $10, $11, $12, $13, $14) RETURNING id`,
        [botId, tenantId, a.name, a.description, a.method, a.url, JSON.stringify(a.parameters), a.header_names, a.headers_sealed, a.confirm, a.verified_only, a.user_id_param, a.enabled, a.status_text],
      );
      return r!.id;
    });
  }

  async update(tenantId: string, botId: string, id: string, a: ActionFields): Promise<void> {
    await this.ds.query(
      `UPDATE bots.actions SET name = $4, description = $5, method = $6, url = $7, parameters = $8::jsonb, header_names = $9::text[], headers_sealed = $10,
         confirm = $11, verified_only = $12, user_id_param = $13, enabled = $14, status_text = $15, updated_at = clock_timestamp()
       WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3`,
      [tenantId, botId, id, a.name, a.description, a.method, a.url, JSON.stringify(a.parameters), a.header_names, a.headers_sealed, a.confirm, a.verified_only, a.user_id_param, a.enabled, a.status_text],
    );
  }

  async delete(tenantId: string, botId: string, id: string): Promise<boolean> {
    const [, n]: [unknown, number] = await this.ds.query(`DELETE FROM bots.actions WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3`, [tenantId, botId, id]);
    return n > 0;
  }

  async settings(tenantId: string, botId: string): Promise<BotActionSettingsView> {
    const rows: SettingsRow[] = await this.ds.query(
      `SELECT max_calls_per_turn, builtin_booking, builtin_lead, builtin_handoff FROM bots.action_settings WHERE tenant_id = $1 AND chatbot_id = $2`,
      [tenantId, botId],
    );
    return settingsOf(rows[0]);
  }

  /** Writes the settings of a bot of the tenant (the caller checked it). */
  async saveSettings(tenantId: string, botId: string, s: BotActionSettingsView): Promise<void> {
    await this.ds.query(
      `INSERT INTO bots.action_settings (chatbot_id, tenant_id, max_calls_per_turn, builtin_booking, builtin_lead, builtin_handoff)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (chatbot_id) DO UPDATE SET max_calls_per_turn = EXCLUDED.max_calls_per_turn, builtin_booking = EXCLUDED.builtin_booking,
         builtin_lead = EXCLUDED.builtin_lead, builtin_handoff = EXCLUDED.builtin_handoff, updated_at = clock_timestamp()
       WHERE bots.action_settings.tenant_id = EXCLUDED.tenant_id`,
      [botId, tenantId, s.max_calls_per_turn, s.builtins.booking, s.builtins.lead, s.builtins.handoff],
    );
  }
}
