import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablesSql } from '@sa/events';

/**
 * Channels (issue 35): a bot on e-mail, WhatsApp, Telegram and Slack.
 *
 * - `connections`: a bot's provider account. `settings` as given (shown); `secrets` maps each
 *   credential's name to its value sealed with the installation's key (SecretBox), never returned.
 *   `status` / `last_error` for people. E-mail: the mailbox's checkpoint (`mail_uid_validity`,
 *   `mail_last_uid`: the last message handed to `inbound`) and the reader's lease (`reader_id`,
 *   `reader_until`: one replica reads a mailbox).
 * - `inbound`: every message a provider delivered, written before the provider gets its 2xx (or
 *   the mailbox's checkpoint moves), unique per (connection, provider message id): a retried
 *   delivery is stored once. A replica answers it under a lease (`claimed_by`, `claimed_until`):
 *   received → answered (the reply queued in `deliveries`, same transaction), held (a person has
 *   the conversation), skipped (nothing to answer) or failed (after `attempts`).
 * - `conversations`: an external conversation (a WhatsApp number, a Telegram chat, a Slack thread,
 *   an e-mail thread) is one chat session; `reply_to` is how to answer its latest message (a
 *   person's reply from the console goes there).
 * - `deliveries`: replies to send, one per `source` (`inbound:<id>`, `person:<message id>`), sent
 *   with backoff (`next_attempt_at`) under a lease, `sent` once the provider took it.
 * - `outbox` / `processed_events`: the events consumer's bookkeeping (conversation.person_reply).
 */
export class CreateChannels1795300035200 implements MigrationInterface {
  name = 'CreateChannels1795300035200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS channels`);
    await q.query(`
      CREATE TABLE channels.connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('email', 'whatsapp', 'telegram', 'slack')),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
        settings jsonb NOT NULL DEFAULT '{}',
        secrets jsonb NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT true,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'error')),
        last_error text NULL CHECK (char_length(last_error) <= 500),
        last_error_at timestamptz NULL,
        last_inbound_at timestamptz NULL,
        last_outbound_at timestamptz NULL,
        mail_uid_validity bigint NULL,
        mail_last_uid bigint NULL,
        reader_id text NULL,
        reader_until timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX connections_bot_idx ON channels.connections (tenant_id, chatbot_id, created_at)`);
    await q.query(`CREATE INDEX connections_mail_idx ON channels.connections (kind) WHERE kind = 'email' AND enabled`);
    await q.query(`
      CREATE TABLE channels.inbound (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        connection_id uuid NOT NULL REFERENCES channels.connections (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        provider_message_id text NOT NULL CHECK (char_length(provider_message_id) BETWEEN 1 AND 500),
        conversation_key text NOT NULL CHECK (char_length(conversation_key) BETWEEN 1 AND 1000),
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        text text NOT NULL,
        sender jsonb NOT NULL,
        reply_to jsonb NOT NULL,
        state text NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'answered', 'held', 'skipped', 'failed')),
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        claimed_by text NULL,
        claimed_until timestamptz NULL,
        error text NULL,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        done_at timestamptz NULL,
        UNIQUE (connection_id, provider_message_id)
      )`);
    await q.query(`CREATE INDEX inbound_todo_idx ON channels.inbound (next_attempt_at) WHERE state = 'received'`);
    await q.query(`
      CREATE TABLE channels.conversations (
        connection_id uuid NOT NULL REFERENCES channels.connections (id) ON DELETE CASCADE,
        conversation_key text NOT NULL,
        tenant_id uuid NOT NULL,
        session_id text NOT NULL,
        reply_to jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (connection_id, conversation_key)
      )`);
    await q.query(`CREATE UNIQUE INDEX conversations_session_idx ON channels.conversations (tenant_id, session_id)`);
    await q.query(`
      CREATE TABLE channels.deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        connection_id uuid NOT NULL REFERENCES channels.connections (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        source text NOT NULL UNIQUE,
        reply_to jsonb NOT NULL,
        text text NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        claimed_by text NULL,
        claimed_until timestamptz NULL,
        provider_message_id text NULL,
        error text NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        sent_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX deliveries_todo_idx ON channels.deliveries (next_attempt_at) WHERE state = 'pending'`);
    for (const sql of outboxTablesSql('channels').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA IF EXISTS channels CASCADE`);
  }
}
