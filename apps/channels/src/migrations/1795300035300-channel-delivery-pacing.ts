import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Channels: replies paced per conversation (issue 35, "sending respects each provider's rate
 * limits"). A delivery names its conversation's session: a conversation's replies go out in
 * order, one at a time, at least CHANNELS_CONVERSATION_GAP_MS apart (Telegram: about one message
 * per second per chat; Slack: one per second per channel; WhatsApp's pair rate limit), and a
 * connection sends at most CHANNELS_CONNECTION_SENDS_PER_SECOND.
 */
export class ChannelDeliveryPacing1795300035300 implements MigrationInterface {
  name = 'ChannelDeliveryPacing1795300035300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE channels.deliveries ADD COLUMN session_id text NULL CHECK (char_length(session_id) <= 120)`);
    await q.query(`CREATE INDEX deliveries_session_idx ON channels.deliveries (connection_id, session_id, created_at)`);
    await q.query(`CREATE INDEX deliveries_sent_idx ON channels.deliveries (connection_id, sent_at) WHERE sent_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS channels.deliveries_sent_idx`);
    await q.query(`DROP INDEX IF EXISTS channels.deliveries_session_idx`);
    await q.query(`ALTER TABLE channels.deliveries DROP COLUMN IF EXISTS session_id`);
  }
}
