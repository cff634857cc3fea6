import { Inject, Injectable } from '@nestjs/common';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import {
  CHANNELS_PER_BOT_MAX,
  CallerContext,
  ChannelConnectionView,
  CreateChannelConnectionRequest,
  UpdateChannelConnectionRequest,
  ValidationIssue,
  WEBHOOK_CHANNEL_KINDS,
  WebhookChannelKind,
  channelWebhookPath,
} from '@sa/contracts';
import { DomainError, NotFound, ValidationFailed } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { SecretBox } from '@sa/secret-box';
import { CHANNELS_CONFIG, ChannelsConfig } from '../config/channels.config';
import { SECRET_BOX } from '../channels.tokens';
import { parseMailSettings } from '../email/mail-settings';
import { fieldIssues } from './connection-fields';
import { ConnectionRow, ConnectionsRepository } from './connections.repository';

const KIND_NAMES = { email: 'E-mail', whatsapp: 'WhatsApp', telegram: 'Telegram', slack: 'Slack' } as const;
/** Settings whose change points the reader at another mailbox: its checkpoint no longer applies. */
const MAILBOX_SETTINGS = ['imap_host', 'imap_port', 'imap_user', 'mailbox'];

/** An e-mail connection's settings as the reader and sender read them (host names, ports, TLS modes, the from address). */
function mailIssues(settings: Record<string, string>, secrets: Record<string, string>): ValidationIssue[] {
  const parsed = parseMailSettings({ settings, secrets });
  if (parsed.ok) return [];
  return parsed.problems.map((p) => ({ code: p.code, path: ['body', p.field.endsWith('password') ? 'secrets' : 'settings', p.field], message: p.message }));
}

export function isWebhookKind(kind: string): kind is WebhookChannelKind {
  return (WEBHOOK_CHANNEL_KINDS as readonly string[]).includes(kind);
}

/**
 * A bot's channel connections (issue 35): credentials sealed as they arrive and never returned;
 * the bot must be one of the caller's workspace (404 otherwise) and allowed to the caller's token.
 * The console checks roles (owners and admins change, members read) and writes the audit log.
 */
@Injectable()
export class ConnectionsService {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly rpc: RpcClient,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
  ) {}

  async list(ctx: CallerContext, botId: string): Promise<ChannelConnectionView[]> {
    await this.botMustExist(ctx, botId);
    return (await this.connections.list(ctx.tenantId, botId)).map((r) => this.view(r));
  }

  async create(ctx: CallerContext, req: CreateChannelConnectionRequest): Promise<ChannelConnectionView> {
    await this.botMustExist(ctx, req.botId);
    const settings = req.settings ?? {};
    const secrets = req.secrets ?? {};
    const issues = fieldIssues(req.kind, settings, secrets, { complete: true });
    if (!issues.length && req.kind === 'email') issues.push(...mailIssues(settings, secrets));
    if (issues.length) throw new ValidationFailed(issues);
    const row = await this.connections.transaction(async (m) => {
      if ((await this.connections.countForBot(m, ctx.tenantId, req.botId)) >= CHANNELS_PER_BOT_MAX) {
        throw new DomainError('conflict', `A bot has at most ${CHANNELS_PER_BOT_MAX} channel connections`);
      }
      return this.connections.insert(m, { tenantId: ctx.tenantId, botId: req.botId, kind: req.kind, name: req.name?.trim() || KIND_NAMES[req.kind], settings, secrets: this.seal(secrets) });
    });
    return this.view(row);
  }

  async update(ctx: CallerContext, req: UpdateChannelConnectionRequest): Promise<ChannelConnectionView> {
    await this.botMustExist(ctx, req.botId);
    const row = await this.connections.transaction(async (m) => {
      const current = await this.connections.get(ctx.tenantId, req.botId, req.connectionId, m, true);
      if (!current) throw new NotFound('Channel connection');
      const settings = req.settings ?? current.settings;
      const secrets = req.secrets ?? {};
      const issues = fieldIssues(current.kind, settings, secrets, { complete: true, storedSecrets: Object.keys(current.secrets) });
      // The stored passwords count as given (their values are not needed to check the settings).
      if (!issues.length && current.kind === 'email') issues.push(...mailIssues(settings, { ...Object.fromEntries(Object.keys(current.secrets).map((k) => [k, 'stored'])), ...secrets }));
      if (issues.length) throw new ValidationFailed(issues);
      const resetMailbox = current.kind === 'email' && MAILBOX_SETTINGS.some((k) => (settings[k] ?? '') !== (current.settings[k] ?? ''));
      return this.connections.update(m, current.id, {
        name: req.name?.trim() || current.name,
        settings,
        secrets: { ...current.secrets, ...this.seal(secrets) },
        enabled: req.enabled ?? current.enabled,
        resetMailbox,
      });
    });
    return this.view(row);
  }

  async delete(ctx: CallerContext, botId: string, connectionId: string): Promise<ChannelConnectionView> {
    await this.botMustExist(ctx, botId);
    const row = await this.connections.transaction(async (m) => {
      const current = await this.connections.get(ctx.tenantId, botId, connectionId, m, true);
      if (!current) throw new NotFound('Channel connection');
      await this.connections.delete(m, current.id);
      return current;
    });
    return this.view(row);
  }

  /** The credentials as the provider needs them; only ever in this process's memory. */
  openSecrets(row: ConnectionRow): Record<string, string> {
    return Object.fromEntries(Object.entries(row.secrets).map(([k, v]) => [k, this.box.open(v)]));
  }

  view(r: ConnectionRow): ChannelConnectionView {
    return {
      id: r.id,
      bot_id: r.chatbot_id,
      kind: r.kind,
      name: r.name,
      settings: r.settings,
      secrets_set: Object.keys(r.secrets).sort(),
      enabled: r.enabled,
      status: r.enabled ? r.status : 'disabled',
      last_error: r.last_error,
      last_error_at: r.last_error_at?.toISOString() ?? null,
      last_inbound_at: r.last_inbound_at?.toISOString() ?? null,
      last_outbound_at: r.last_outbound_at?.toISOString() ?? null,
      webhook_url: isWebhookKind(r.kind) ? `${this.config.gatewayPublicUrl}${channelWebhookPath(r.kind, r.id)}` : null,
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
    };
  }

  private seal(secrets: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, this.box.seal(v)]));
  }

  private async botMustExist(ctx: CallerContext, botId: string): Promise<void> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const { found } = await this.rpc.send('bots.bot.check', { ids: [botId] }, ctx);
    if (!found.includes(botId)) throw new NotFound('Bot');
  }
}
