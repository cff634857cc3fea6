import { baseUrlSetting, commonConfig, env, parseConfig } from '@sa/config';
import type { Plan } from '@sa/contracts';
import type { PlanLimit } from '@sa/identity';
import { webhookSecretKeyConfig } from '@sa/secret-box';

export const loadChannelsConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      /** Where providers reach the gateway (the webhook URLs the console shows). */
      gatewayPublicUrl: baseUrlSetting('GATEWAY_PUBLIC_URL', `http://127.0.0.1:${source['GATEWAY_PORT'] || '3000'}`),
      /** The providers' API base URLs: configurable for regional endpoints and tests; every call goes through the outbound guard. */
      whatsappApiBase: baseUrlSetting('CHANNELS_WHATSAPP_API_BASE', 'https://graph.facebook.com'),
      telegramApiBase: baseUrlSetting('CHANNELS_TELEGRAM_API_BASE', 'https://api.telegram.org'),
      slackApiBase: baseUrlSetting('CHANNELS_SLACK_API_BASE', 'https://slack.com'),
      /** Inbound messages one replica answers at once (each a chat turn). */
      concurrency: env.int('CHANNELS_CONCURRENCY', 4, { min: 1, max: 64 }),
      /** How long a replica's claim on a message (answering) or a reply (sending) lasts; a replica that died leaves it to another after this. */
      leaseMs: env.int('CHANNELS_LEASE_MS', 60_000, { min: 1000, max: 3_600_000 }),
      /** How often a replica looks for messages to answer and replies to send that are due (new ones wake it at once). */
      pollMs: env.int('CHANNELS_POLL_MS', 1000, { min: 50, max: 600_000 }),
      /** Tries of answering one message (the chat service down, a turn that failed unstored) before it is recorded as failed. */
      answerAttempts: env.int('CHANNELS_ANSWER_ATTEMPTS', 5, { min: 1, max: 100 }),
      /** Tries of sending one reply (429s and 5xx, with backoff) before it is recorded as failed. */
      sendAttempts: env.int('CHANNELS_SEND_ATTEMPTS', 8, { min: 1, max: 100 }),
      /** The first retry's wait; it doubles up to the maximum (a provider's Retry-After wins when longer). */
      retryBaseMs: env.int('CHANNELS_RETRY_BASE_MS', 1000, { min: 10, max: 600_000 }),
      retryMaxMs: env.int('CHANNELS_RETRY_MAX_MS', 300_000, { min: 10, max: 86_400_000 }),
      /** How long one turn may take to start, and may stay silent. */
      chatStartTimeoutMs: env.int('CHANNELS_CHAT_START_TIMEOUT_MS', 15_000, { min: 100, max: 600_000 }),
      chatIdleTimeoutMs: env.int('CHANNELS_CHAT_IDLE_TIMEOUT_MS', 60_000, { min: 100, max: 600_000 }),
      /**
       * The least time between two replies in one conversation (not e-mail): Telegram asks for about
       * one message per second per chat, Slack allows one per second per channel, WhatsApp limits
       * messages to one user in a short time (its pair rate limit).
       */
      conversationGapMs: env.int('CHANNELS_CONVERSATION_GAP_MS', 1000, { min: 0, max: 600_000 }),
      /** Replies one connection sends per second at most (Telegram: 30 a second overall; WhatsApp's Cloud API: 80 by default). */
      connectionSendsPerSecond: env.int('CHANNELS_CONNECTION_SENDS_PER_SECOND', 20, { min: 1, max: 1000 }),
      /** One provider API call may take this long. */
      sendTimeoutMs: env.int('CHANNELS_SEND_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
      /** E-mail: how often a mailbox without IDLE (or after a dropped connection) is looked at. */
      mailPollMs: env.int('CHANNELS_MAIL_POLL_MS', 30_000, { min: 100, max: 3_600_000 }),
      /** Plan limits, as the gateway reads them (a channel's turns count against the workspace's message quota). */
      planLimits: env.json<Partial<Record<Plan, Partial<PlanLimit>>>>('PLAN_LIMITS', {}),
      /** The key that seals connection credentials (WEBHOOK_SECRET_KEY, as the other services' secrets). */
      secretKey: webhookSecretKeyConfig,
    },
    source,
  );

export type ChannelsConfig = ReturnType<typeof loadChannelsConfig>;
export const CHANNELS_CONFIG = Symbol('CHANNELS_CONFIG');
export const CHANNELS_LOGGER = Symbol('CHANNELS_LOGGER');
