import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: channels (issue 35). A visitor's message a channel delivered carries the provider's id of
 * it (provider_message_id); providers retry, so one id is one message per workspace and channel.
 * The unique index is the last guard behind the channels service's own (its inbound table): a
 * redelivered turn finds the stored message instead of answering twice.
 */
export class ChatProviderMessageIds1795300035100 implements MigrationInterface {
  name = 'ChatProviderMessageIds1795300035100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE UNIQUE INDEX chat_messages_provider_message_id ON chat.messages (tenant_id, channel, provider_message_id) WHERE role = 'user' AND provider_message_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS chat.chat_messages_provider_message_id`);
  }
}
