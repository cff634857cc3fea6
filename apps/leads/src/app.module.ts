import { Module } from '@nestjs/common';
import { DatabaseModule } from '@sa/db';
import { EventsModule, provideEventConsumer } from '@sa/events';
import { createLogger } from '@sa/logging';
import { OpsModule } from '@sa/ops';
import { MessagingModule } from '@sa/messaging';
import { LEADS_CONFIG, loadLeadsConfig } from './config/leads.config';
import { LeadsHandler } from './leads/leads.handler';
import { LeadStatusService } from './leads/lead-status.service';
import { LeadsRepository } from './leads/leads.repository';
import { TurnCompletedHandler } from './leads/turn-completed.handler';
import { VisitorMessagesRepository } from './leads/visitor-messages.repository';
import { VisitorLeadsService } from './leads/visitor-leads.service';
import { LEADS_LOGGER } from './leads.tokens';
import { createLeadScorer, LEAD_SCORER } from './scoring/model-scorer';

const config = loadLeadsConfig();
const logger = createLogger('leads', { level: config.logLevel });

/** Leads: sessions scored for intent after every chat turn (chat.turn.completed), the widget's identify call and lead form, listed for GET /leads; emits lead.created. */
@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'leads' }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'leads', connectionName: 'leads' }),
    OpsModule.forService('leads', config),
    EventsModule.forService({ schema: 'leads', natsUrl: config.natsUrl, stream: { name: config.eventsStream, subjectPrefix: config.eventsSubjectPrefix }, relay: true }),
  ],
  controllers: [LeadsHandler],
  providers: [
    { provide: LEADS_CONFIG, useValue: config },
    { provide: LEADS_LOGGER, useValue: logger },
    { provide: LEAD_SCORER, useValue: createLeadScorer(config, logger) },
    LeadsRepository,
    VisitorMessagesRepository,
    TurnCompletedHandler,
    VisitorLeadsService,
    LeadStatusService,
    provideEventConsumer({ durable: 'leads-chat-turn-completed', types: ['chat.turn.completed'], handler: TurnCompletedHandler }),
  ],
})
export class AppModule {}
