import { commonConfig, env, parseConfig } from '@sa/config';
import { webhookSecretKeyConfig } from '@sa/secret-box';

export const loadChatConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      /** Knowledge passages retrieved for each question. */
      passages: env.int('CHAT_PASSAGES', 5, { min: 1, max: 20 }),
      /** Earlier turns of the session given to the model. */
      historyMessages: env.int('CHAT_HISTORY_MESSAGES', 10, { min: 0, max: 100 }),
      /** A turn still generating after this long is stopped and what it produced is saved. */
      maxTurnMs: env.int('CHAT_MAX_TURN_MS', 120000, { min: 1000 }),
      /** Issue 19: longest list of top and of unanswered questions the console's Analytics page gets. */
      analyticsQuestions: env.int('CHAT_ANALYTICS_QUESTIONS', 20, { min: 1, max: 100 }),
      /** Issue 34: how long a call waits for the visitor's confirmation; a later decision is refused (409) and the call does not run. */
      actionConfirmationTtlMinutes: env.int('CHAT_ACTION_CONFIRMATION_TTL_MINUTES', 60, { min: 1, max: 7 * 24 * 60 }),
      /**
       * Issue 36: the name this replica holds its turns' reserved messages under (default: host,
       * process and a random part, new at every start), how often it says it is alive and looks for
       * other replicas' orphans, and how long a replica may be silent before the messages it
       * reserved are given back.
       */
      replicaId: env.optionalStr('CHAT_REPLICA_ID'),
      reservationSweepMs: env.int('CHAT_RESERVATION_SWEEP_MS', 5000, { min: 100, max: 600000 }),
      reservationOrphanMs: env.int('CHAT_RESERVATION_ORPHAN_MS', 30000, { min: 500, max: 24 * 3600 * 1000 }),
      /** Issue 32: the key that opens the sealed keys of the workspaces' model connections (WEBHOOK_SECRET_KEY, as the bots service). */
      secretKey: webhookSecretKeyConfig,
    },
    source,
  );

export type ChatConfig = ReturnType<typeof loadChatConfig>;
export const CHAT_CONFIG = Symbol('CHAT_CONFIG');
