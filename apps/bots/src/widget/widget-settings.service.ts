import { Inject, Injectable } from '@nestjs/common';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import {
  CallerContext,
  PublicBot,
  UpdateWidgetSettingsRequest,
  VerifyWidgetIdentityReply,
  VerifyWidgetIdentityRequest,
  WIDGET_CHANGED_SUBJECT,
  WidgetChangedEvent,
  WidgetSecretView,
  WidgetSettingsView,
  WidgetTheme,
  canonicalOrigin,
} from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { NATS_CONNECTION } from '@sa/messaging';
import { SecretBox } from '@sa/secret-box';
import { StoredWidgetSettings, WidgetSettingsRepository, WidgetSettingsRow } from './widget-settings.repository';

export const WIDGET_SECRET_BOX = Symbol('WIDGET_SECRET_BOX');
export const WIDGET_SECRET_PREFIX = 'wsk_';

/** A new widget identity secret: `wsk_` and 32 random bytes as base64url (43 characters). */
export function generateWidgetSecret(): string {
  return `${WIDGET_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The userHash a customer's server computes: hex HMAC-SHA256 of the user id, keyed with the secret. */
export function userHashOf(secret: string, externalUserId: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(externalUserId, 'utf8')).digest('hex');
}

/** Constant-time comparison of two hex hashes, case-insensitive. */
export function sameHash(expected: string, given: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Origins as stored: canonical (lower case, default port dropped), without duplicates, in the order given. */
export function canonicalOrigins(origins: readonly string[]): string[] {
  return [...new Set(origins.map((o) => canonicalOrigin(o)).filter((o): o is string => o !== null))];
}

function themeOf(r: WidgetSettingsRow): WidgetTheme {
  return { color: r.color, position: r.position, greeting: r.greeting, launcher_text: r.launcher_text };
}

export function toSettingsView(r: WidgetSettingsRow): WidgetSettingsView {
  return {
    chatbot_id: r.chatbot_id,
    allowed_origins: r.allowed_origins,
    theme: themeOf(r),
    identity_secret: { set: r.identity_secret !== null, created_at: r.identity_secret_created_at ? r.identity_secret_created_at.toISOString() : null },
    updated_at: r.updated_at ? r.updated_at.toISOString() : null,
  };
}

export function toPublicBot(r: WidgetSettingsRow): PublicBot {
  return { id: r.chatbot_id, tenant_id: r.tenant_id, name: r.name, language: r.language, allowed_origins: r.allowed_origins, widget: themeOf(r), identity: r.identity_secret !== null, starter_questions: r.starter_questions };
}

/**
 * A bot's widget settings (issue 18). Every change is published on `bots.widget.changed` so the
 * gateways drop their cached copy of the bot at once. The identity secret is sealed with the
 * webhook secrets' key, shown once when made, and never logged.
 */
@Injectable()
export class WidgetSettingsService {
  constructor(
    private readonly repository: WidgetSettingsRepository,
    @Inject(WIDGET_SECRET_BOX) private readonly box: SecretBox,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  private async row(ctx: CallerContext, botId: string): Promise<WidgetSettingsRow> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const row = await this.repository.find(ctx.tenantId, botId);
    if (!row) throw new NotFound('Bot');
    return row;
  }

  async get(ctx: CallerContext, botId: string): Promise<WidgetSettingsView> {
    return toSettingsView(await this.row(ctx, botId));
  }

  async publicBot(botId: string): Promise<PublicBot | null> {
    const row = await this.repository.findPublic(botId);
    return row ? toPublicBot(row) : null;
  }

  async update(ctx: CallerContext, req: UpdateWidgetSettingsRequest): Promise<WidgetSettingsView> {
    const current = await this.row(ctx, req.botId);
    const theme = req.theme ?? {};
    const next: StoredWidgetSettings = {
      allowed_origins: req.allowed_origins ? canonicalOrigins(req.allowed_origins) : current.allowed_origins,
      color: theme.color != null ? theme.color.toLowerCase() : current.color, // null passes IsOptional: left out
      position: theme.position ?? current.position,
      greeting: theme.greeting !== undefined ? theme.greeting : current.greeting,
      launcher_text: theme.launcher_text !== undefined ? theme.launcher_text : current.launcher_text,
    };
    await this.repository.save(ctx.tenantId, req.botId, next);
    this.announceChange(req.botId);
    return toSettingsView((await this.repository.find(ctx.tenantId, req.botId))!);
  }

  async rotateSecret(ctx: CallerContext, botId: string): Promise<WidgetSecretView> {
    await this.row(ctx, botId);
    const secret = generateWidgetSecret();
    const createdAt = await this.repository.saveSecret(ctx.tenantId, botId, this.box.seal(secret));
    this.announceChange(botId);
    return { secret, created_at: createdAt.toISOString() };
  }

  /** Whether userHash is the HMAC of externalUserId under the bot's secret; false when it has none. */
  async verify(ctx: CallerContext, req: VerifyWidgetIdentityRequest): Promise<VerifyWidgetIdentityReply> {
    const row = await this.row(ctx, req.chatbotId);
    if (!row.identity_secret) return { valid: false };
    return { valid: sameHash(userHashOf(this.box.open(row.identity_secret), req.externalUserId), req.userHash) };
  }

  /** Tells the gateways to drop their cached copy of the bot (also after a rename or a language change). */
  announceChange(botId: string): void {
    const event: WidgetChangedEvent = { botId };
    this.nc.publish(WIDGET_CHANGED_SUBJECT, JSON.stringify(event));
  }
}
