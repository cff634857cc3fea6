import { Module } from '@nestjs/common';
import { DatabaseModule } from '@sa/db';
import { EventsModule, provideEventConsumer } from '@sa/events';
import { createLogger } from '@sa/logging';
import { MessagingModule } from '@sa/messaging';
import { outboundPolicyFromEnv } from '@sa/net-guard';
import { OpsModule } from '@sa/ops';
import { SecretBox } from '@sa/secret-box';
import { ChannelsHandler } from './channels.handler';
import { SECRET_BOX } from './channels.tokens';
import { CHANNELS_CONFIG, CHANNELS_LOGGER, loadChannelsConfig } from './config/channels.config';
import { ConnectionsRepository } from './connections/connections.repository';
import { ConnectionsService } from './connections/connections.service';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { DeliveryWorker } from './delivery/delivery.worker';
import { PersonReplyHandler } from './delivery/person-reply.handler';
import { CHANNELS_OUTBOUND_POLICY, Senders } from './delivery/senders';
import { MailboxSupervisor } from './email/mailbox-supervisor';
import { AnswerWorker } from './inbound/answer.worker';
import { InboundRepository } from './inbound/inbound.repository';
import { WebhookService } from './inbound/webhook.service';
import { WorkspaceContexts } from './inbound/workspace-contexts';

const config = loadChannelsConfig();

/**
 * Channels (issue 35): the same bot on e-mail, WhatsApp, Telegram and Slack. Connections with
 * sealed credentials; the providers' webhooks (through the gateway) and the mailboxes (IMAP) store
 * inbound messages idempotently; a worker answers each through the real chat path, another sends
 * the replies with backoff; a person's reply from the console goes out the same way.
 */
@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'channels' }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'channels', connectionName: 'channels' }),
    OpsModule.forService('channels', config),
    EventsModule.forService({ schema: 'channels', natsUrl: config.natsUrl, stream: { name: config.eventsStream, subjectPrefix: config.eventsSubjectPrefix }, relay: false }),
  ],
  controllers: [ChannelsHandler],
  providers: [
    { provide: CHANNELS_CONFIG, useValue: config },
    { provide: CHANNELS_LOGGER, useValue: createLogger('channels', { level: config.logLevel }) },
    { provide: SECRET_BOX, useValue: new SecretBox(config.secretKey.key) },
    // Provider APIs and mail servers are reached through the outbound guard (OUTBOUND_*).
    { provide: CHANNELS_OUTBOUND_POLICY, useFactory: () => outboundPolicyFromEnv() },
    ConnectionsRepository,
    ConnectionsService,
    InboundRepository,
    DeliveriesRepository,
    WorkspaceContexts,
    WebhookService,
    AnswerWorker,
    DeliveryWorker,
    Senders,
    MailboxSupervisor,
    PersonReplyHandler,
    provideEventConsumer({ durable: 'channels-person-reply', types: ['conversation.person_reply'], handler: PersonReplyHandler }),
  ],
})
export class AppModule {}
