import { IsBoolean, IsIn, IsISO8601, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { Doc, Nullable } from './schema-docs';
import { CharLength, IsStringMap, NotBlank } from './validation';

/**
 * Channels (issue 35): the same bot on e-mail, WhatsApp, Telegram and Slack. A connection ties a
 * bot to one provider account (a mailbox, a WhatsApp phone number, a Telegram bot, a Slack app).
 * Its credentials are write-only: sealed with the installation's key as they arrive, opened only
 * in the channels service, never returned (`secrets_set` names the ones stored). Each inbound
 * message becomes a chat turn of the bot with the connection's kind as its channel, in one session
 * per external conversation; the reply goes back through the provider.
 */
export const CHANNEL_KINDS = ['email', 'whatsapp', 'telegram', 'slack'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
/** The kinds whose provider calls us (a webhook through the gateway); e-mail is read over IMAP. */
export const WEBHOOK_CHANNEL_KINDS = ['whatsapp', 'telegram', 'slack'] as const;
export type WebhookChannelKind = (typeof WEBHOOK_CHANNEL_KINDS)[number];

/** What a connection needs, per kind: settings (shown) and secrets (write-only). `?` marks optional ones. */
export const CHANNEL_FIELDS: Record<ChannelKind, { settings: readonly string[]; secrets: readonly string[] }> = {
  email: {
    settings: ['imap_host', 'imap_port?', 'imap_tls?', 'imap_user', 'mailbox?', 'smtp_host', 'smtp_port?', 'smtp_tls?', 'smtp_user?', 'from_address', 'from_name?'],
    secrets: ['imap_password', 'smtp_password?'],
  },
  whatsapp: { settings: ['phone_number_id', 'graph_version?'], secrets: ['access_token', 'app_secret', 'verify_token'] },
  telegram: { settings: [], secrets: ['bot_token', 'webhook_secret'] },
  slack: { settings: ['team_id?', 'bot_user_id?'], secrets: ['bot_token', 'signing_secret'] },
};

/** A connection's state, for people: waiting for its first message, working, failing (see last_error), or turned off. */
export const CHANNEL_STATUSES = ['pending', 'active', 'error', 'disabled'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

export const CHANNEL_NAME_MAX = 80;
export const CHANNEL_SETTING_MAX = 500;
export const CHANNEL_SECRET_MAX = 4000;
/** Connections per bot. */
export const CHANNELS_PER_BOT_MAX = 10;
/** The public route a provider posts to (the gateway's origin): `/channels/v1/{kind}/{connectionId}`. */
export const CHANNEL_WEBHOOK_PATH = '/channels/v1';
/** A webhook body larger than this is refused (413) before anything is parsed: provider payloads are a few kB, and base64 of this fits NATS's default 1 MiB payload. */
export const CHANNEL_WEBHOOK_BODY_MAX = 512 * 1024;

export function channelWebhookPath(kind: WebhookChannelKind, connectionId: string): string {
  return `${CHANNEL_WEBHOOK_PATH}/${kind}/${connectionId}`;
}

@Doc({ name: 'ChannelConnection', description: 'A bot on one provider account. Credentials are write-only: `secrets_set` names the ones stored, never their values.' })
export class ChannelConnectionView {
  @IsUUID() id: string;
  @IsUUID() bot_id: string;
  @Doc('email, whatsapp, telegram or slack.') @IsIn(CHANNEL_KINDS) kind: ChannelKind;
  @Doc('A name for people ("Support inbox").') @IsString() name: string;
  @Doc('The non-secret settings (host names, ports, ids), as given.') @IsStringMap() settings: Record<string, string>;
  @Doc('The names of the stored credentials (their values are never returned).') @IsString({ each: true }) secrets_set: string[];
  @Doc('Off: inbound messages are refused (the provider gets 404) and the mailbox is not read.') @IsBoolean() enabled: boolean;
  @Doc('pending: no message yet; active: the last exchange worked; error: see last_error; disabled: turned off.') @IsIn(CHANNEL_STATUSES) status: ChannelStatus;
  @Doc('Why the last receive or send failed, for people (never a credential); null: none since it last worked.') @Nullable() @IsString() last_error: string | null;
  @Nullable() @IsISO8601() last_error_at: string | null;
  @Doc('When the last inbound message was accepted.') @Nullable() @IsISO8601() last_inbound_at: string | null;
  @Doc('When the last reply was delivered to the provider.') @Nullable() @IsISO8601() last_outbound_at: string | null;
  @Doc("The URL to give the provider (its webhook / request URL), on the gateway's public origin; null for e-mail (read over IMAP).") @Nullable() @IsString() webhook_url: string | null;
  @IsISO8601() created_at: string;
  @IsISO8601() updated_at: string;
}

@Doc({ name: 'ChannelConnectionCreate', description: `A new connection. Unknown members are rejected (400); settings and secrets a kind does not take are refused (400), as are missing required ones. A bot has at most ${CHANNELS_PER_BOT_MAX} (409).` })
export class CreateChannelConnectionBody {
  @IsIn(CHANNEL_KINDS) kind: ChannelKind;
  @Doc(`1 to ${CHANNEL_NAME_MAX} characters; left out: the kind's name.`) @IsOptional() @IsString() @CharLength(1, CHANNEL_NAME_MAX) @NotBlank() name?: string;
  @Doc(`The kind's settings (see the README, "Channels"), each up to ${CHANNEL_SETTING_MAX} characters.`) @IsOptional() @IsObject() @IsStringMap() settings?: Record<string, string>;
  @Doc(`The kind's credentials, each up to ${CHANNEL_SECRET_MAX} characters. Write-only: stored encrypted, never shown again.`) @IsOptional() @IsObject() @IsStringMap() secrets?: Record<string, string>;
}

@Doc({ name: 'ChannelConnectionUpdate', description: 'A change; members left out stay as they are. `secrets` replaces only the credentials it names. Unknown members are rejected (400).' })
export class UpdateChannelConnectionBody {
  @IsOptional() @IsString() @CharLength(1, CHANNEL_NAME_MAX) @NotBlank() name?: string;
  @Doc('Replaces the settings (all of them: give the whole set).') @IsOptional() @IsObject() @IsStringMap() settings?: Record<string, string>;
  @Doc('Credentials to replace; the others stay.') @IsOptional() @IsObject() @IsStringMap() secrets?: Record<string, string>;
  @IsOptional() @IsBoolean() enabled?: boolean;
}

/** channels.connection.list. */
export class ChannelConnectionsRequest {
  @IsUUID() botId: string;
}
/** channels.connection.delete. */
export class ChannelConnectionIdRequest {
  @IsUUID() botId: string;
  @IsUUID() connectionId: string;
}
export class CreateChannelConnectionRequest extends CreateChannelConnectionBody {
  @IsUUID() botId: string;
}
export class UpdateChannelConnectionRequest extends UpdateChannelConnectionBody {
  @IsUUID() botId: string;
  @IsUUID() connectionId: string;
}

/**
 * channels.webhook.receive (no caller context: the provider is anonymous until its signature is
 * checked, in the channels service that holds the secret): a provider's request as the gateway
 * got it, the body byte for byte (base64).
 */
export class ChannelWebhookRequest {
  @IsIn(WEBHOOK_CHANNEL_KINDS) kind: WebhookChannelKind;
  @IsUUID() connectionId: string;
  @IsIn(['GET', 'POST']) method: 'GET' | 'POST';
  @IsStringMap() query: Record<string, string>;
  @IsStringMap() headers: Record<string, string>;
  @IsString() @MaxLength(Math.ceil((CHANNEL_WEBHOOK_BODY_MAX * 4) / 3) + 4) body_base64: string;
}

/** What the gateway answers the provider. */
export interface ChannelWebhookReply {
  status: number;
  body: string;
  content_type: string;
}
