import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablesSql } from '@sa/events';
import { scriptBigramsFunctionSql } from '@sa/text-scripts';

/**
 * Chat: the messages of every conversation, one summary row per session, and the monthly
 * message quota counters.
 *
 * - `chat.messages`: both turns of every exchange. `tsv` holds the words of the content ('simple'
 *   configuration: no stemming, works for every language) plus the character bigrams of runs of
 *   scripts written without spaces (CJK, Thai, Lao, Khmer, Myanmar), so a GIN index can pre-filter
 *   substring searches in those scripts too. chat.script_bigrams comes from @sa/text-scripts, as
 *   do the ranges conversations/search-query.ts uses; each service has its own function because
 *   each service owns its schema. `question_key` is the normalised text of a user message
 *   (analytics/question-key.ts) that top questions group by; at most 200 characters so the btree
 *   index on it never meets the index row size limit.
 * - `chat.sessions`: maintained by MessagesRepository.insertTurn in the statement that inserts the
 *   turn (message_count, first_at, last_at, preview = first user message, at most 200
 *   characters). chatbot_id and channel are those of the session's first turn.
 * - `chat.usage`: messages counted per workspace and calendar month (UTC); a reservation is one
 *   conditional upsert, so concurrent requests can never overshoot the limit.
 */
export class CreateChat1795300004000 implements MigrationInterface {
  name = 'CreateChat1795300004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS chat`);
    // chat.script_bigrams(text): the bigrams of the runs of scripts written without spaces.
    await q.query(scriptBigramsFunctionSql('chat'));
    await q.query(`
      CREATE TABLE chat.messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        role text NOT NULL CHECK (role IN ('user', 'assistant')),
        content text NOT NULL,
        feedback text NULL CHECK (feedback IN ('positive', 'negative')),
        source_urls text[] NULL,
        channel text NOT NULL,
        provider_message_id text NULL,
        language text NULL,
        unanswered boolean NOT NULL DEFAULT false,
        question_key text NULL CHECK (char_length(question_key) <= 200),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        tsv tsvector GENERATED ALWAYS AS (
          to_tsvector('simple', content) || to_tsvector('simple', chat.script_bigrams(content))
        ) STORED
      )`);
    await q.query(`CREATE INDEX messages_tenant_session_idx ON chat.messages (tenant_id, session_id, created_at)`);
    await q.query(`CREATE INDEX messages_tenant_bot_idx ON chat.messages (tenant_id, chatbot_id, created_at)`);
    // Workspace-wide analytics over a date window (no chatbot filter).
    await q.query(`CREATE INDEX messages_tenant_created_idx ON chat.messages (tenant_id, created_at)`);
    // Top questions: the latest phrasing of a group.
    await q.query(`CREATE INDEX messages_tenant_question_idx ON chat.messages (tenant_id, question_key, created_at) WHERE question_key IS NOT NULL`);
    await q.query(`CREATE INDEX messages_tsv_idx ON chat.messages USING gin (tsv)`);

    await q.query(`
      CREATE TABLE chat.sessions (
        tenant_id uuid NOT NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        chatbot_id uuid NULL,
        channel text NOT NULL,
        message_count integer NOT NULL DEFAULT 0 CHECK (message_count >= 0),
        first_at timestamptz NOT NULL,
        last_at timestamptz NOT NULL,
        preview text NULL CHECK (char_length(preview) <= 200),
        PRIMARY KEY (tenant_id, session_id)
      )`);
    // The order of GET /conversations (last_at DESC, session_id DESC), workspace-wide and per bot.
    await q.query(`CREATE INDEX sessions_tenant_last_idx ON chat.sessions (tenant_id, last_at DESC, session_id DESC)`);
    await q.query(`CREATE INDEX sessions_tenant_bot_last_idx ON chat.sessions (tenant_id, chatbot_id, last_at DESC, session_id DESC)`);

    await q.query(`
      CREATE TABLE chat.usage (
        tenant_id uuid NOT NULL,
        month date NOT NULL CHECK (extract(day FROM month) = 1),
        messages integer NOT NULL CHECK (messages >= 0),
        PRIMARY KEY (tenant_id, month)
      )`);
    for (const sql of outboxTablesSql('chat').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA chat CASCADE`);
  }
}
