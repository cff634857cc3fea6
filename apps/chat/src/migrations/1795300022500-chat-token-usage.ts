import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: token usage and the monthly token budget (issue 32, item 5).
 *
 * - `chat.messages.prompt_tokens`, `completion_tokens`: on the bot's answers, the tokens the model's
 *   provider reported for it. NULL: no report (the extractive answers, a provider that sends none,
 *   a person's reply, the visitor's messages, answers stored before this migration).
 * - `chat.usage.tokens`: prompt plus completion tokens counted per workspace and calendar month
 *   (UTC), every channel; the budget is checked against it. A widget turn adds a row here too
 *   (with `messages` 0: widget messages count against each bot's own budget).
 * - `chat.token_budgets`: a workspace's monthly token budget, when its owners set one.
 */
export class ChatTokenUsage1795300022500 implements MigrationInterface {
  name = 'ChatTokenUsage1795300022500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat.messages
      ADD COLUMN prompt_tokens integer NULL CHECK (prompt_tokens >= 0),
      ADD COLUMN completion_tokens integer NULL CHECK (completion_tokens >= 0)`);
    await q.query(`ALTER TABLE chat.usage ADD COLUMN tokens bigint NOT NULL DEFAULT 0 CHECK (tokens >= 0)`);
    await q.query(`
      CREATE TABLE chat.token_budgets (
        tenant_id uuid PRIMARY KEY,
        monthly_tokens bigint NOT NULL CHECK (monthly_tokens > 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chat.token_budgets`);
    await q.query(`ALTER TABLE chat.usage DROP COLUMN tokens`);
    await q.query(`ALTER TABLE chat.messages DROP COLUMN prompt_tokens, DROP COLUMN completion_tokens`);
  }
}
