import { DataSource } from 'typeorm';
import { WEBHOOK_EVENT_TYPES, WebhookEventType, isWebhookEventType } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { AccessFacts, hasWebhooks } from '@sa/identity';
import { OutboundPolicy, Resolver } from '@sa/net-guard';
import { AttemptTrigger, DELIVERIES_CHANNEL, DeliveryStatus } from './channels';
import { SecretBox, generateSigningSecret } from '@sa/secret-box';
import { checkWebhookUrl } from './webhook-url';

/** A refused admin request (unknown id, bad URL …): the message is for the operator. */
export class WebhookInputError extends Error {}

/** The request named a record that does not exist (in the workspace it was asked for): 404 at an edge. */
export class WebhookNotFoundError extends WebhookInputError {
  constructor(
    readonly what: 'Workspace' | 'Bot' | 'Webhook' | 'Delivery',
    message: string,
  ) {
    super(message);
  }
}

/** The record is not in a state that allows the change (a redeliver of a delivery still open): 409 at an edge. */
export class WebhookStateError extends WebhookInputError {}

/** Longest webhook name (the contract's WEBHOOK_NAME_MAX). */
export const WEBHOOK_NAME_MAX_CHARS = 100;

/**
 * The event type of a test delivery ("Send test event"): not one of the five events, so that a
 * receiver acting on those never mistakes a test for a real lead or booking
 * (docs/decisions/webhooks.md, "Issue 16: webhook test events"). Signed and sent like any delivery.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function requireUuid(value: string, what: string): void {
  if (!UUID.test(value)) throw new WebhookInputError(`${what} must be a UUID (got "${value}")`);
}

export interface LastDeliveryView {
  delivery_id: string;
  event: string;
  event_id: string;
  status: DeliveryStatus;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  at: string | null;
}

export interface WebhookView {
  id: string;
  workspace_id: string;
  /** What it is for; its endpoint's host unless named. */
  name: string;
  url: string;
  events: WebhookEventType[];
  /** Null: every bot of the workspace. */
  bot_id: string | null;
  created_at: string;
  /** The most recent delivery (status shown beside the webhook, spec part 6), or null. */
  last_delivery: LastDeliveryView | null;
}

export interface CreatedWebhook extends Omit<WebhookView, 'last_delivery'> {
  /** The signing secret: shown once, here. */
  secret: string;
  /** False while the workspace's plan includes no webhooks (nothing is delivered until it does). */
  deliveries_enabled: boolean;
}

export interface AttemptView {
  attempt: number;
  trigger: AttemptTrigger;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  workspace_id: string;
  event: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  last_attempt_at: string | null;
  created_at: string;
  attempt_log: AttemptView[];
}

export interface CreateWebhookInput {
  workspaceId: string;
  /** Absent or blank: the endpoint's host. */
  name?: string | null;
  url: string;
  /** Event kinds, or ['all'] for the five. */
  events: string[];
  botId?: string | null;
}

/**
 * What WebhookAdmin needs from the data of other services: the workspace's plan (identity, the
 * gateway's) and whether a bot belongs to it (the bots service's). The admin CLI reads identity
 * as the gateway's operator and asks the bots service over NATS.
 */
export interface WebhookAdminDirectory {
  /** The workspace's access facts, or null when there is no such workspace. */
  workspace(id: string): Promise<AccessFacts | null>;
  /** Whether `botId` is a bot of the workspace. */
  isBotOf(workspaceId: string, botId: string): Promise<boolean>;
}

export interface WebhookAdminOptions {
  policy: Pick<OutboundPolicy, 'allowedPorts' | 'allowCidrs'>;
  secrets: SecretBox;
  /** Webhooks one workspace may have. */
  maxPerWorkspace: number;
  resolver?: Resolver;
}

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

interface WebhookRow {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  events: string[];
  bot_id: string | null;
  created_at: Date;
}

/** The members every webhook view shares (create, list). */
function webhookFields(row: WebhookRow) {
  return {
    id: row.id,
    workspace_id: row.tenant_id,
    name: row.name,
    url: row.url,
    events: row.events as WebhookEventType[],
    bot_id: row.bot_id,
    created_at: iso(row.created_at)!,
  };
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  tenant_id: string;
  event_type: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  last_attempt_at: Date | null;
  created_at: Date;
}

function deliveryView(row: DeliveryRow, attempts: AttemptView[]): DeliveryView {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    workspace_id: row.tenant_id,
    event: row.event_type,
    event_id: row.event_id,
    status: row.status,
    attempts: row.attempts,
    status_code: row.last_status_code,
    error: row.last_error,
    duration_ms: row.last_duration_ms,
    last_attempt_at: iso(row.last_attempt_at),
    created_at: iso(row.created_at)!,
    attempt_log: attempts,
  };
}

/** Normalises the requested event kinds: known ones only, no repeats, `all` for the five. */
export function parseWebhookEvents(events: string[]): WebhookEventType[] {
  const wanted = events.map((e) => e.trim()).filter((e) => e !== '');
  if (wanted.length === 0) throw new WebhookInputError(`--events needs at least one of: ${WEBHOOK_EVENT_TYPES.join(', ')} (or all)`);
  if (wanted.includes('all')) {
    if (wanted.length > 1) throw new WebhookInputError('--events all cannot be combined with other event kinds');
    return [...WEBHOOK_EVENT_TYPES];
  }
  const unknown = wanted.filter((e) => !isWebhookEventType(e));
  if (unknown.length) throw new WebhookInputError(`unknown event kind(s): ${unknown.join(', ')} (known: ${WEBHOOK_EVENT_TYPES.join(', ')})`);
  return WEBHOOK_EVENT_TYPES.filter((t) => wanted.includes(t));
}

/**
 * Webhook registrations and their delivery log (schema `webhooks`, the dispatcher's), as operators
 * manage them (the admin CLI until a dashboard exists). The dispatcher reads registrations per
 * event, so changes apply to the next one.
 */
export class WebhookAdmin {
  constructor(
    private readonly ds: DataSource,
    private readonly opts: WebhookAdminOptions,
    private readonly directory: WebhookAdminDirectory,
  ) {}

  async create(input: CreateWebhookInput): Promise<CreatedWebhook> {
    requireUuid(input.workspaceId, '--workspace');
    const events = parseWebhookEvents(input.events);
    const botId = input.botId ?? null;
    if (botId !== null) requireUuid(botId, '--bot');
    const name = input.name?.trim() || null;
    if (name !== null && [...name].length > WEBHOOK_NAME_MAX_CHARS) throw new WebhookInputError(`--name must be at most ${WEBHOOK_NAME_MAX_CHARS} characters`);
    const workspace = await this.workspace(input.workspaceId);
    if (botId !== null && !(await this.directory.isBotOf(input.workspaceId, botId))) {
      throw new WebhookNotFoundError('Bot', `no bot with id ${botId} in workspace ${input.workspaceId}`);
    }
    const checked = await checkWebhookUrl(input.url.trim(), this.opts.policy, { resolver: this.opts.resolver });
    if (!checked.ok) throw new WebhookInputError(`--url refused: ${checked.reason}`);
    const secret = generateSigningSecret();
    const row = await this.ds.transaction(async (m) => {
      // Serialises concurrent creations for one workspace so the count below holds.
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhooks:${input.workspaceId}`]);
      const [{ n }] = await queryRows<{ n: number }>(m, `SELECT count(*)::int AS n FROM webhooks.webhooks WHERE tenant_id = $1`, [input.workspaceId]);
      if (n >= this.opts.maxPerWorkspace) throw new WebhookInputError(`workspace ${input.workspaceId} already has ${n} webhooks (at most ${this.opts.maxPerWorkspace})`);
      const [created] = await queryRows<WebhookRow>(
        m,
        `INSERT INTO webhooks.webhooks (tenant_id, name, url, events, bot_id, secret) VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id, tenant_id, name, url, events, bot_id, created_at`,
        // A null name is the endpoint's host (a trigger of the table says so once for every writer).
        [input.workspaceId, name, checked.url, events, botId, this.opts.secrets.seal(secret)],
      );
      return created;
    });
    return {
      ...webhookFields(row),
      secret,
      deliveries_enabled: workspace.webhooks,
    };
  }

  async list(workspaceId: string): Promise<WebhookView[]> {
    requireUuid(workspaceId, '--workspace');
    await this.workspace(workspaceId);
    const rows = await queryRows<WebhookRow & { last: (Omit<LastDeliveryView, 'at'> & { at: string | null }) | null }>(
      this.ds,
      `SELECT w.id, w.tenant_id, w.name, w.url, w.events, w.bot_id, w.created_at,
              (SELECT json_build_object('delivery_id', d.id, 'event', d.event_type, 'event_id', d.event_id, 'status', d.status,
                                        'status_code', d.last_status_code, 'error', d.last_error, 'duration_ms', d.last_duration_ms,
                                        'at', d.last_attempt_at)
                 FROM webhooks.deliveries d WHERE d.webhook_id = w.id
                ORDER BY COALESCE(d.last_attempt_at, d.created_at) DESC, d.created_at DESC LIMIT 1) AS last
         FROM webhooks.webhooks w WHERE w.tenant_id = $1 ORDER BY w.created_at, w.id`,
      [workspaceId],
    );
    return rows.map((r) => ({
      ...webhookFields(r),
      last_delivery: r.last ? { ...r.last, at: iso(r.last.at) } : null,
    }));
  }

  /** Deletes a webhook and its delivery log; deliveries not yet sent are dropped. */
  async delete(id: string, workspaceId?: string): Promise<{ id: string; deleted: true }> {
    requireUuid(id, '--id');
    if (workspaceId !== undefined) requireUuid(workspaceId, '--workspace');
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `DELETE FROM webhooks.webhooks WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2) RETURNING id`,
      [id, workspaceId ?? null],
    );
    if (rows.length === 0) throw new WebhookNotFoundError('Webhook', `no webhook with id ${id}${workspaceId ? ` in workspace ${workspaceId}` : ''}`);
    return { id, deleted: true };
  }

  /**
   * Replaces a webhook's signing secret (the old one stops signing at once: deliveries not yet
   * sent are signed with the new one). The new secret is shown once, here.
   */
  async rotateSecret(id: string, workspaceId?: string): Promise<{ id: string; secret: string }> {
    requireUuid(id, '--id');
    if (workspaceId !== undefined) requireUuid(workspaceId, '--workspace');
    const secret = generateSigningSecret();
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `UPDATE webhooks.webhooks SET secret = $3 WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2) RETURNING id`,
      [id, workspaceId ?? null, this.opts.secrets.seal(secret)],
    );
    if (rows.length === 0) throw new WebhookNotFoundError('Webhook', `no webhook with id ${id}${workspaceId ? ` in workspace ${workspaceId}` : ''}`);
    return { id, secret };
  }

  /**
   * Queues a test delivery to a webhook (event WEBHOOK_TEST_EVENT, whatever events it subscribes
   * to) and wakes the dispatcher, which signs and sends it like any other; its outcome is in the
   * delivery log. Returns the delivery as queued.
   */
  async sendTest(id: string, workspaceId?: string): Promise<DeliveryView> {
    requireUuid(id, '--id');
    if (workspaceId !== undefined) requireUuid(workspaceId, '--workspace');
    const rows = await this.ds.transaction(async (m) => {
      const inserted = await queryRows<DeliveryRow>(
        m,
        `INSERT INTO webhooks.deliveries (tenant_id, webhook_id, event_id, event_type, occurred_at, data, next_trigger)
         SELECT w.tenant_id, w.id, gen_random_uuid(), $3, clock_timestamp(),
                json_build_object('test', true, 'webhook_id', w.id, 'chatbot_id', w.bot_id,
                                  'message', 'A test event sent from the console. No action is needed.'),
                'manual'
           FROM webhooks.webhooks w WHERE w.id = $1 AND ($2::uuid IS NULL OR w.tenant_id = $2)
         RETURNING *`,
        [id, workspaceId ?? null, WEBHOOK_TEST_EVENT],
      );
      if (inserted.length) await m.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, inserted[0].id]);
      return inserted;
    });
    if (rows.length === 0) throw new WebhookNotFoundError('Webhook', `no webhook with id ${id}${workspaceId ? ` in workspace ${workspaceId}` : ''}`);
    return (await this.withAttempts(rows))[0];
  }

  /** The delivery log of one webhook (of `workspaceId` only, when given), newest first, each with its attempts. */
  async deliveries(webhookId: string, opts: { limit?: number; status?: DeliveryStatus; workspaceId?: string } = {}): Promise<DeliveryView[]> {
    requireUuid(webhookId, '--webhook');
    if (opts.workspaceId !== undefined) requireUuid(opts.workspaceId, '--workspace');
    const exists = await queryRows(this.ds, `SELECT 1 FROM webhooks.webhooks WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2)`, [webhookId, opts.workspaceId ?? null]);
    if (exists.length === 0) throw new WebhookNotFoundError('Webhook', `no webhook with id ${webhookId}`);
    const rows = await queryRows<DeliveryRow>(
      this.ds,
      `SELECT * FROM webhooks.deliveries WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2)
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [webhookId, opts.status ?? null, opts.limit ?? 50],
    );
    return this.withAttempts(rows);
  }

  async delivery(id: string, workspaceId?: string): Promise<DeliveryView> {
    requireUuid(id, '--delivery');
    const rows = await queryRows<DeliveryRow>(this.ds, `SELECT * FROM webhooks.deliveries WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2)`, [id, workspaceId ?? null]);
    if (rows.length === 0) throw new WebhookNotFoundError('Delivery', `no delivery with id ${id}`);
    return (await this.withAttempts(rows))[0];
  }

  /**
   * Queues one more attempt of a finished delivery (a manual redeliver: the dispatcher signs it
   * afresh, with a new timestamp) and wakes the dispatcher. A delivery still pending or being sent
   * is refused. Returns the delivery as queued.
   */
  async redeliver(id: string, workspaceId?: string, webhookId?: string): Promise<DeliveryView> {
    requireUuid(id, '--delivery');
    if (workspaceId !== undefined) requireUuid(workspaceId, '--workspace');
    if (webhookId !== undefined) requireUuid(webhookId, '--webhook');
    const rows = await this.ds.transaction(async (m) => {
      const updated = await queryRows<DeliveryRow>(
        m,
        `UPDATE webhooks.deliveries SET status = 'pending', owner = NULL, lease_until = NULL, next_trigger = 'manual'
          WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2) AND ($3::uuid IS NULL OR webhook_id = $3) AND status IN ('succeeded', 'failed') RETURNING *`,
        [id, workspaceId ?? null, webhookId ?? null],
      );
      if (updated.length) await m.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, id]);
      return updated;
    });
    if (rows.length === 0) {
      const current = await this.delivery(id, workspaceId); // throws when unknown
      if (webhookId !== undefined && current.webhook_id !== webhookId) throw new WebhookNotFoundError('Delivery', `no delivery with id ${id} for webhook ${webhookId}`);
      throw new WebhookStateError(`delivery ${id} is ${current.status}; only a finished delivery (succeeded or failed) can be redelivered`);
    }
    return (await this.withAttempts(rows))[0];
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<DeliveryView[]> {
    if (rows.length === 0) return [];
    const attempts = await queryRows<AttemptView & { delivery_id: string }>(
      this.ds,
      `SELECT delivery_id, attempt, trigger, started_at, finished_at, duration_ms, status_code, error
         FROM webhooks.attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, attempt`,
      [rows.map((r) => r.id)],
    );
    const byDelivery = new Map<string, AttemptView[]>();
    for (const { delivery_id, ...a } of attempts) {
      const list = byDelivery.get(delivery_id) ?? [];
      list.push({ ...a, started_at: iso(a.started_at)!, finished_at: iso(a.finished_at) });
      byDelivery.set(delivery_id, list);
    }
    return rows.map((r) => deliveryView(r, byDelivery.get(r.id) ?? []));
  }

  /** The workspace, and whether its plan includes webhooks (spec part 1 rule 4). */
  private async workspace(id: string): Promise<{ webhooks: boolean }> {
    const facts = await this.directory.workspace(id);
    if (!facts) throw new WebhookNotFoundError('Workspace', `no workspace with id ${id}`);
    return { webhooks: hasWebhooks(facts) };
  }
}
