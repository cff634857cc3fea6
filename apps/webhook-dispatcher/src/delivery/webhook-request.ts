import { signWebhook } from '@sa/webhooks';

/** Our own headers beside the spec's three: receivers deduplicate by the delivery id. */
export const DELIVERY_ID_HEADER = 'X-Service-Delivery-Id';
export const EVENT_ID_HEADER = 'X-Service-Event-Id';

export interface WebhookRequestInput {
  deliveryId: string;
  eventId: string;
  eventType: string;
  /** The event's `data` as JSON text, sent as is. */
  dataJson: string;
  secret: string;
  /** Unix seconds; a redeliver gets a fresh one. */
  timestamp: number;
  userAgent: string;
}

/**
 * The request of one delivery (spec part 6): body `{event, timestamp, data}`, signed as
 * HMAC-SHA256 of `<timestamp>.<body>` with the webhook's secret.
 */
export function webhookRequest(input: WebhookRequestInput): { body: string; headers: Record<string, string> } {
  const body = `{"event":${JSON.stringify(input.eventType)},"timestamp":${input.timestamp},"data":${input.dataJson}}`;
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': input.userAgent,
      'X-Service-Event': input.eventType,
      'X-Service-Timestamp': String(input.timestamp),
      'X-Service-Signature': signWebhook(input.secret, input.timestamp, body),
      [DELIVERY_ID_HEADER]: input.deliveryId,
      [EVENT_ID_HEADER]: input.eventId,
    },
  };
}

/** 2xx is a success; anything else, a 3xx included (redirects are not followed), is a failure. */
export function describeStatus(status: number): { ok: boolean; error: string | null } {
  if (status >= 200 && status < 300) return { ok: true, error: null };
  if (status >= 300 && status < 400) return { ok: false, error: `the endpoint answered ${status}, a redirect; redirects are not followed` };
  return { ok: false, error: `the endpoint answered ${status}` };
}
