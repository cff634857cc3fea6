import { commonConfig, env, parseConfig } from '@sa/config';
import { edgeConfig } from '@sa/edge';

export const loadGatewayConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      ...edgeConfig,
      port: env.int('GATEWAY_PORT', 3000, { min: 0, max: 65535 }),
      host: env.str('GATEWAY_HOST', '127.0.0.1'),
      readyTimeoutMs: env.int('READY_TIMEOUT_MS', 1500, { min: 50 }),
      /** Public widget routes: requests per client IP (and per session) per window. */
      widgetRateLimitRequests: env.int('WIDGET_RATE_LIMIT_REQUESTS', 120, { min: 1 }),
      widgetRateLimitWindowSeconds: env.int('WIDGET_RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1, max: 86400 }),
      /** Issue 35: provider webhook requests per channel connection per window (anyone can post to the URL; the signature is checked after). */
      channelWebhookRateLimitRequests: env.int('CHANNEL_WEBHOOK_RATE_LIMIT_REQUESTS', 600, { min: 1 }),
      channelWebhookRateLimitWindowSeconds: env.int('CHANNEL_WEBHOOK_RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1, max: 86400 }),
      /** How long the gateway waits for the channels service to store a webhook's messages (providers give 3 to 10 s). */
      channelWebhookTimeoutMs: env.int('CHANNEL_WEBHOOK_TIMEOUT_MS', 2500, { min: 100, max: 30000 }),
      /** The widget's long poll for a person's replies (issue 19): how long one request waits for news. */
      widgetRepliesWaitMs: env.int('WIDGET_REPLIES_WAIT_MS', 10000, { min: 0, max: 120000 }),
    },
    source,
  );

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
