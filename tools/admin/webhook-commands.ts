import { EnvSource, env, parseConfig } from '@sa/config';
import { outboundPolicyFromEnv } from '@sa/net-guard';
import { DeliveryStatus, DeliveryView, SecretBox, WebhookAdmin, WebhookAdminOptions, webhookSecretKeyConfig } from '@sa/webhook-registry';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'sending', 'succeeded', 'failed'];

export function isDeliveryStatus(value: string): value is DeliveryStatus {
  return (DELIVERY_STATUSES as readonly string[]).includes(value);
}

/** Largest and default `--limit` of `webhook deliveries`. */
export const MAX_DELIVERIES_LIMIT = 500;
export const DEFAULT_DELIVERIES_LIMIT = 50;
/** Default `--wait` of `webhook redeliver`, in seconds. */
export const DEFAULT_REDELIVER_WAIT_SECONDS = 15;
/** How often `webhook redeliver` looks at the delivery while it waits. */
export const REDELIVER_POLL_MS = 200;

const webhookConfig = {
  // Never echoed: the key's messages do not repeat the value.
  secretKey: webhookSecretKeyConfig,
  maxPerWorkspace: env.int('WEBHOOK_MAX_PER_WORKSPACE', 20, { min: 1, max: 1000 }),
};

/**
 * What WebhookAdmin needs, from the environment: the key that seals new signing secrets
 * (WEBHOOK_SECRET_KEY; required with NODE_ENV=production, else the local key file that `npm start`
 * uses too, WEBHOOK_SECRET_KEY_FILE or .data/webhook-secret-key), WEBHOOK_MAX_PER_WORKSPACE, and
 * the outbound policy (OUTBOUND_ALLOWED_PORTS, OUTBOUND_ALLOW_CIDRS …) that endpoint URLs are
 * checked against. Throws a ConfigError listing every problem.
 */
export function webhookAdminOptions(source: EnvSource = process.env): WebhookAdminOptions {
  const c = parseConfig(webhookConfig, source);
  return { secrets: new SecretBox(c.secretKey.key), policy: outboundPolicyFromEnv(source), maxPerWorkspace: c.maxPerWorkspace };
}

export type RedeliverOutcome = DeliveryView & { note?: string };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Queues a redelivery, then looks at the delivery every `pollMs` until it has succeeded or failed
 * or `waitMs` has passed. A delivery not finished by then comes back with a note saying why.
 */
export async function redeliverAndWait(
  admin: Pick<WebhookAdmin, 'redeliver' | 'delivery'>,
  id: string,
  waitMs: number,
  pollMs = REDELIVER_POLL_MS,
): Promise<RedeliverOutcome> {
  let view = await admin.redeliver(id);
  const deadline = Date.now() + waitMs;
  while (view.status !== 'succeeded' && view.status !== 'failed' && Date.now() < deadline) {
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
    view = await admin.delivery(id);
  }
  switch (view.status) {
    case 'succeeded':
    case 'failed':
      return view;
    case 'pending':
      return { ...view, note: 'queued; the webhook-dispatcher sends it when it runs' };
    case 'sending':
      return { ...view, note: 'being sent; `webhook deliveries` shows the result once it is in' };
  }
}
