import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { commonConfig, env, parseConfig } from '@sa/config';
import { webhookSecretKeyConfig } from '@sa/webhook-registry';

export const DEFAULT_WEBHOOK_USER_AGENT = 'SupportAgent-Webhooks/1.0';

export const loadWebhookDispatcherConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      /** Time allowed for one delivery: connection, request and the response status (spec part 8: 10 s). */
      timeoutMs: env.int('WEBHOOK_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
      /**
       * How long a connection to an endpoint is kept open after a request for the next one (less
       * when the endpoint announces a shorter Keep-Alive timeout); 0: a connection per request.
       */
      keepAliveMs: env.int('WEBHOOK_KEEP_ALIVE_MS', 1000, { min: 0, max: 60_000 }),
      /**
       * Requests in flight at once, all endpoints together: eight webhooks' worth of slots, so that
       * a few webhooks whose endpoints hang (each holding its slots up to the timeout) leave room
       * for every other webhook.
       */
      concurrency: env.int('WEBHOOK_CONCURRENCY', 256, { min: 1, max: 10_000 }),
      /**
       * Requests in flight at once to one webhook: a slow endpoint holds only these. One webhook's
       * ceiling is about this many divided by (claim commit + request time): 32 slots carry about
       * 3,500 deliveries/s to a 4 ms endpoint beside a 5 ms claim, 300/s to a 100 ms one. On a
       * slow or busy machine the claim and the request take several times as long (16 slots, the
       * default until issue 36, were the limit at 500/s there: docs/decisions/webhooks.md).
       */
      endpointConcurrency: env.int('WEBHOOK_ENDPOINT_CONCURRENCY', 32, { min: 1, max: 1000 }),
      /** Deliveries one webhook may have waiting in memory; beyond that they wait in the database. */
      endpointQueueMax: env.int('WEBHOOK_ENDPOINT_QUEUE_MAX', 20_000, { min: 1, max: 1_000_000 }),
      /** Events handled at once by the JetStream consumer (each in its own transaction). */
      consumerConcurrency: env.int('WEBHOOK_CONSUMER_CONCURRENCY', 16, { min: 1, max: 1000 }),
      /** An event not acknowledged within this time is redelivered by JetStream. */
      ackWaitMs: env.int('WEBHOOK_ACK_WAIT_MS', 30_000, { min: 1000, max: 3_600_000 }),
      /** How long a dispatcher holds an open delivery without renewing (renewed every third of it). */
      leaseMs: env.int('WEBHOOK_LEASE_MS', 30_000, { min: 1000, max: 3_600_000 }),
      /** How often deliveries nobody holds (redelivers, a crashed dispatcher's) are looked for. */
      sweepMs: env.int('WEBHOOK_SWEEP_MS', 2000, { min: 50, max: 600_000 }),
      /** Finished deliveries (and their attempts) older than this are deleted. */
      logRetentionDays: env.int('WEBHOOK_LOG_RETENTION_DAYS', 30, { min: 1, max: 3650 }),
      /**
       * The key that encrypts signing secrets at rest: WEBHOOK_SECRET_KEY (32 bytes, hex or base64),
       * required with NODE_ENV=production; otherwise the local key file (.data/webhook-secret-key).
       */
      secretKey: webhookSecretKeyConfig,
      userAgent: env.str('WEBHOOK_USER_AGENT', DEFAULT_WEBHOOK_USER_AGENT),
      /** Webhooks one workspace may have (created through the console; the admin CLI reads the same variable). */
      maxPerWorkspace: env.int('WEBHOOK_MAX_PER_WORKSPACE', 20, { min: 1, max: 1000 }),
      /** This dispatcher's name in the delivery log's leases: unique per running process. */
      instanceId: env.str('WEBHOOK_DISPATCHER_ID', `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`),
    },
    source,
  );

export type WebhookDispatcherConfig = ReturnType<typeof loadWebhookDispatcherConfig>;
export const DISPATCHER_CONFIG = Symbol('DISPATCHER_CONFIG');
export const DISPATCHER_LOGGER = Symbol('DISPATCHER_LOGGER');
export const DISPATCHER_POLICY = Symbol('DISPATCHER_POLICY');
