import { ArrayMaxSize, ArrayMinSize, IsArray, IsEmail, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import type { VerifyTokenReply } from './identity';
import { Type } from 'class-transformer';
import { CharLength, IsHttpUrl, NotBlank } from './validation';
import { Doc, Nested, Nullable } from './schema-docs';
import { SCOPES, Scope } from './scopes';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from './events';

/*
 * Management of a workspace by its people (spec part 5 rule 2, part 6 rule 1): API tokens (owned
 * by the gateway, schema `identity`), webhooks (owned by the webhook dispatcher, schema
 * `webhooks`) and the e-mails people receive (the bookings service's mail outbox). The console's
 * JSON API validates its bodies with these classes and forwards them over NATS with a caller
 * context built from the person's session; the handlers validate them again.
 */

/** A person's role in a workspace. Owners and admins manage tokens, webhooks and OAuth connections; only owners change owners; members read. */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export const TOKEN_NAME_MAX = 100;
/** Longest token lifetime a person may choose (ten years). */
export const TOKEN_EXPIRY_MAX_SECONDS = 10 * 365 * 86400;
export const TOKEN_BOTS_MAX = 100;

// ---- API tokens: identity.token.create | list | revoke (answered by the gateway) ----

@Doc({ description: 'A new API token. Its secret is returned once, in the reply.' })
export class CreateApiTokenRequest {
  @Doc(`1 to ${TOKEN_NAME_MAX} characters.`) @IsString() @CharLength(1, TOKEN_NAME_MAX) @NotBlank() name: string;

  @Doc('The scopes the token grants (at least one).')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SCOPES.length)
  @IsIn(SCOPES, { each: true })
  scopes: Scope[];

  @Doc('Bots the token is limited to; null or absent: every bot of the workspace.')
  @IsOptional()
  @Nullable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TOKEN_BOTS_MAX)
  @IsUUID('all', { each: true })
  bot_ids?: string[] | null;

  @Doc('Seconds until the token expires; null or absent: never.')
  @IsOptional()
  @Nullable()
  @Type(() => Number)
  @IsInt()
  @Min(60)
  @Max(TOKEN_EXPIRY_MAX_SECONDS)
  expires_in_seconds?: number | null;
}

export class ListApiTokensRequest {}

export class ApiTokenIdRequest {
  @IsUUID('all') token_id: string;
}

@Doc({ name: 'ApiToken', description: 'An API token as listed (never its secret).' })
export class ApiTokenView {
  @IsUUID() id: string;
  @IsString() name: string;
  @Doc('The last characters of the secret, to recognise it.') @IsString() hint: string;
  @IsArray() @IsIn(SCOPES, { each: true }) scopes: Scope[];
  @Doc('Null: every bot of the workspace.') @Nullable() @IsArray() @IsUUID('all', { each: true }) bot_ids: string[] | null;
  @IsISO8601() created_at: string;
  @Nullable() @IsISO8601() last_used_at: string | null;
  @Nullable() @IsISO8601() expires_at: string | null;
  @Nullable() @IsISO8601() revoked_at: string | null;
}

@Doc({ name: 'CreatedApiToken', description: 'A new token: `token` is its secret, shown this once.' })
export class CreatedApiTokenView extends ApiTokenView {
  @IsString() token: string;
}

// ---- Webhooks: webhook-dispatcher.webhook.* and webhook-dispatcher.delivery.* ----

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_NAME_MAX = 100;
export const DELIVERIES_LIST_MAX = 100;
export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed'] as const;
export type DeliveryStatusName = (typeof DELIVERY_STATUSES)[number];

@Doc({ description: 'A new webhook: a public HTTPS endpoint, the chosen events, all bots or one bot (spec part 6 rule 1).' })
export class CreateWebhookRequest {
  @Doc(`What the webhook is for, 1 to ${WEBHOOK_NAME_MAX} characters; absent: its endpoint's host.`)
  @IsOptional()
  @IsString()
  @CharLength(1, WEBHOOK_NAME_MAX)
  @NotBlank()
  name?: string;

  @Doc('Public HTTPS endpoint.') @IsString() @CharLength(1, WEBHOOK_URL_MAX) @IsHttpUrl() url: string;

  @Doc('The events delivered to it (at least one).')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  events: WebhookEventType[];

  @Doc('One bot of the workspace; null or absent: every bot.') @IsOptional() @Nullable() @IsUUID('all') bot_id?: string | null;
}

export class ListWebhooksRequest {}

export class WebhookIdRequest {
  @IsUUID('all') webhook_id: string;
}

export class ListDeliveriesRequest {
  @IsUUID('all') webhook_id: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(DELIVERIES_LIST_MAX) limit?: number;
}

export class DeliveryIdRequest {
  @IsUUID('all') delivery_id: string;
  @Doc('The webhook the delivery must belong to (else not found).') @IsOptional() @IsUUID('all') webhook_id?: string;
}

@Doc({ name: 'LastDelivery', description: 'The most recent delivery of a webhook.' })
export class LastDeliveryView {
  @IsUUID() delivery_id: string;
  @IsString() event: string;
  @IsString() event_id: string;
  @IsIn(DELIVERY_STATUSES) status: DeliveryStatusName;
  @Nullable() @IsInt() status_code: number | null;
  @Nullable() @IsString() error: string | null;
  @Nullable() @IsInt() duration_ms: number | null;
  @Nullable() @IsISO8601() at: string | null;
}

/** The webhook views below mirror @sa/webhook-registry's WebhookView, CreatedWebhook and DeliveryView. */
@Doc({ name: 'Webhook', description: 'A webhook with the status of its last delivery (spec part 6).' })
export class WebhookView {
  @IsUUID() id: string;
  @IsString() name: string;
  @IsString() url: string;
  @IsArray() @IsIn(WEBHOOK_EVENT_TYPES, { each: true }) events: WebhookEventType[];
  @Doc('Null: every bot of the workspace.') @Nullable() @IsUUID() bot_id: string | null;
  @IsISO8601() created_at: string;
  @Nullable() @Nested(() => LastDeliveryView) last_delivery: LastDeliveryView | null;
}

@Doc({ name: 'CreatedWebhook', description: 'A new webhook: `secret` (`whsec_…`) is shown this once.' })
export class CreatedWebhookView extends WebhookView {
  @IsString() secret: string;
  @Doc('False while the workspace\'s plan includes no webhooks (nothing is delivered until it does).') deliveries_enabled: boolean;
}

@Doc({ name: 'WebhookSecret', description: 'A signing secret (`whsec_…`), shown once.' })
export class WebhookSecretView {
  @IsUUID() id: string;
  @IsString() secret: string;
}

@Doc({ name: 'DeliveryAttempt' })
export class DeliveryAttemptView {
  @IsInt() attempt: number;
  @IsIn(['event', 'manual']) trigger: 'event' | 'manual';
  @IsISO8601() started_at: string;
  @Nullable() @IsISO8601() finished_at: string | null;
  @Nullable() @IsInt() duration_ms: number | null;
  @Nullable() @IsInt() status_code: number | null;
  @Nullable() @IsString() error: string | null;
}

@Doc({ name: 'Delivery', description: 'One event sent to one webhook, with its attempts.' })
export class DeliveryView {
  @IsUUID() id: string;
  @IsUUID() webhook_id: string;
  @IsString() event: string;
  @IsString() event_id: string;
  @IsIn(DELIVERY_STATUSES) status: DeliveryStatusName;
  @IsInt() attempts: number;
  @Nullable() @IsInt() status_code: number | null;
  @Nullable() @IsString() error: string | null;
  @Nullable() @IsInt() duration_ms: number | null;
  @Nullable() @IsISO8601() last_attempt_at: string | null;
  @IsISO8601() created_at: string;
  @IsArray() @Nested(() => DeliveryAttemptView) attempt_log: DeliveryAttemptView[];
}

// ---- Usage: what the workspace page shows against the quotas ----

export class UsageRequest {}

/** chat.usage.get: messages answered this calendar month (UTC), the quantity the monthly quota counts. */
export interface MessageUsageView {
  messages_this_month: number;
  month_start: string;
}

/** knowledge.usage.get: pages (knowledge documents) stored per bot, the quantity `pages per bot` limits. */
export interface PageUsageView {
  bots: { bot_id: string; pages: number }[];
}

// ---- E-mail to people (invitations, password resets): bookings.email.send ----

export const PERSON_EMAIL_KINDS = ['invitation', 'password_reset', 'handoff', 'evaluation'] as const;
/** The kinds whose body carries a single-use link, erased once the e-mail is sent or has failed for good. */
export const LINK_EMAIL_KINDS: readonly PersonEmailKind[] = ['invitation', 'password_reset'];
export type PersonEmailKind = (typeof PERSON_EMAIL_KINDS)[number];

/**
 * An e-mail to a person, queued in the bookings service's mail outbox and sent by its SMTP worker.
 * The body carries a single-use link: the outbox erases it once the e-mail is sent or has failed
 * for good. No caller context: a password reset belongs to no workspace.
 */
export class SendPersonEmailRequest {
  @IsIn(PERSON_EMAIL_KINDS) kind: PersonEmailKind;
  @IsString() @IsEmail() @CharLength(3, 320) to: string;
  @IsString() @CharLength(1, 300) subject: string;
  @IsString() @CharLength(1, 20000) body_text: string;
  @Doc('The workspace it concerns, when one does (an invitation).') @IsOptional() @Nullable() @IsUUID('all') workspace_id?: string | null;
}

export interface SendPersonEmailReply {
  id: string;
}

// ---- OAuth connections (MCP OAuth, issue 17): console.connection.verify (answered by the console) ----

/** console.connection.verify: the OAuth access token whose value has this SHA-256 (lowercase hex). */
export class VerifyConnectionTokenRequest {
  @Matches(/^[0-9a-f]{64}$/, { message: 'tokenHash must be a lowercase hex SHA-256' }) tokenHash: string;
}

/**
 * `token` is null for an unknown, expired or revoked access token or connection; its `id` is the
 * connection's id (the rate-limit key and what `last used` tracks), `name` the client's name.
 * `audience` is the resource the token was issued for (RFC 8707): the MCP server refuses any other.
 */
export interface VerifyConnectionTokenReply extends VerifyTokenReply {
  audience: string | null;
}
