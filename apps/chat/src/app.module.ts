import { HandoffHandler } from './handoff/handoff.handler';
import { HandoffNotifyHandler } from './handoff/handoff-notify.handler';
import { HandoffRepository } from './handoff/handoff.repository';
import { HandoffService } from './handoff/handoff.service';
import { Module } from '@nestjs/common';
import { DatabaseModule } from '@sa/db';
import { EventsModule, provideEventConsumer } from '@sa/events';
import { createLogger } from '@sa/logging';
import { OpsModule } from '@sa/ops';
import { MessagingModule } from '@sa/messaging';
import { AnalyticsRepository } from './analytics/analytics.repository';
import { ActionCallsHandler } from './actions/action-calls.handler';
import { ActionCallsQueries } from './actions/action-calls.queries';
import { ActionCallsRepository } from './actions/action-calls.repository';
import { TurnActions } from './actions/turn-actions';
import { connectionCalls } from '@sa/llm-config';
import { SecretBox } from '@sa/secret-box';
import { BotModels } from './answer/bot-models';
import { createChatModelFromConfig } from './answer/chat-model';
import { loadChatModelConfig } from './answer/chat-model.config';
import { BOT_MODELS, CHAT_LOGGER } from './chat.tokens';
import { CHAT_CONFIG, loadChatConfig } from './config/chat.config';
import { ConversationsRepository } from './conversations/conversations.repository';
import { MessagesRepository } from './conversations/messages.repository';
import { ConversationQueriesHandler } from './queries/conversation-queries.handler';
import { ChatTurnHandler } from './turns/chat-turn.handler';
import { ChatTurnService } from './turns/chat-turn.service';
import { ReservationSweeper } from './usage/reservation-sweeper';
import { UsageHandler } from './usage/usage.handler';
import { TokenUsageHandler } from './usage/token-usage.handler';
import { TokenUsageRepository } from './usage/token-usage.repository';
import { WidgetSessionsRepository } from './widget/widget-sessions.repository';
import { WidgetHandler } from './widget/widget.handler';
import { WidgetRepository } from './widget/widget.repository';
import { WidgetService } from './widget/widget.service';

const config = loadChatConfig();

/** Chat: answers grounded in the knowledge base (streamed), conversations, analytics. */
@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'chat' }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'chat', connectionName: 'chat' }),
    OpsModule.forService('chat', config),
    EventsModule.forService({ schema: 'chat', natsUrl: config.natsUrl, stream: { name: config.eventsStream, subjectPrefix: config.eventsSubjectPrefix }, relay: true }),
  ],
  controllers: [ChatTurnHandler, ConversationQueriesHandler, WidgetHandler, UsageHandler, TokenUsageHandler, HandoffHandler, ActionCallsHandler],
  providers: [
    { provide: CHAT_CONFIG, useValue: config },
    { provide: CHAT_LOGGER, useValue: createLogger('chat', { level: config.logLevel }) },
    {
      provide: BOT_MODELS,
      useFactory: () => {
        const models = loadChatModelConfig();
        return new BotModels(createChatModelFromConfig(models), models, new SecretBox(config.secretKey.key), connectionCalls());
      },
    },
    MessagesRepository,
    TokenUsageRepository,
    ConversationsRepository,
    AnalyticsRepository,
    ActionCallsQueries,
    ChatTurnService,
    ReservationSweeper,
    TurnActions,
    ActionCallsRepository,
    WidgetRepository,
    WidgetSessionsRepository,
    WidgetService,
    HandoffRepository,
    HandoffService,
    HandoffNotifyHandler,
    provideEventConsumer({ durable: 'chat-handoff-notify', types: ['conversation.handoff'], handler: HandoffNotifyHandler }),
  ],
})
export class AppModule {}
