import { Module } from '@nestjs/common';
import { DatabaseModule } from '@sa/db';
import { EventsModule } from '@sa/events';
import { OpsModule } from '@sa/ops';
import { MessagingModule } from '@sa/messaging';
import { BotEntity } from './bots/bot.entity';
import { BotsHandler } from './bots/bots.handler';
import { BotsRepository } from './bots/bots.repository';
import { BotsService } from './bots/bots.service';
import { loadBotsConfig } from './config/bots.config';
import { SecretBox } from '@sa/secret-box';
import { connectionCalls } from '@sa/llm-config';
import { executeAction } from '@sa/actions';
import { outboundPolicyFromEnv } from '@sa/net-guard';
import { McpServersHandler } from './action-sources/mcp-servers.handler';
import { McpServersRepository } from './action-sources/mcp-servers.repository';
import { McpServersService } from './action-sources/mcp-servers.service';
import { ActionsHandler } from './actions/actions.handler';
import { ActionsRepository } from './actions/actions.repository';
import { ACTION_CALL, ACTION_OUTBOUND_POLICY, ActionsService } from './actions/actions.service';
import { BehaviourHandler } from './behaviour/behaviour.handler';
import { BehaviourRepository } from './behaviour/behaviour.repository';
import { BehaviourService } from './behaviour/behaviour.service';
import { EvalChangePublisher } from './behaviour/eval-change.publisher';
import { ModelConnectionsHandler } from './models/model-connections.handler';
import { ModelConnectionsRepository } from './models/model-connections.repository';
import { MODEL_CONNECTION_CALLS, ModelConnectionsService } from './models/model-connections.service';
import { WidgetSettingsHandler } from './widget/widget-settings.handler';
import { WidgetSettingsRepository } from './widget/widget-settings.repository';
import { WIDGET_SECRET_BOX, WidgetSettingsService } from './widget/widget-settings.service';

const config = loadBotsConfig();

@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'bots', entities: [BotEntity] }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'bots', connectionName: 'bots' }),
    OpsModule.forService('bots', config),
    EventsModule.forService({ schema: 'bots', natsUrl: config.natsUrl, stream: { name: config.eventsStream, subjectPrefix: config.eventsSubjectPrefix }, relay: true }),
  ],
  controllers: [BotsHandler, WidgetSettingsHandler, BehaviourHandler, ModelConnectionsHandler, ActionsHandler, McpServersHandler],
  providers: [
    BotsRepository,
    BotsService,
    BehaviourRepository,
    BehaviourService,
    // Issue 33: behaviour and model changes start automatic evaluation runs (evaluations.change).
    EvalChangePublisher,
    WidgetSettingsRepository,
    WidgetSettingsService,
    ModelConnectionsRepository,
    ModelConnectionsService,
    // Issue 34: a bot's actions; a Test call goes through the outbound policy (OUTBOUND_*).
    ActionsRepository,
    ActionsService,
    { provide: ACTION_OUTBOUND_POLICY, useFactory: () => outboundPolicyFromEnv() },
    { provide: ACTION_CALL, useValue: executeAction },
    // Issue 34, item 3: remote MCP servers as action sources; a sync goes through the same policy.
    McpServersRepository,
    McpServersService,
    // One box seals widget identity secrets, model keys and action header values (WEBHOOK_SECRET_KEY).
    { provide: WIDGET_SECRET_BOX, useValue: new SecretBox(config.secretKey.key) },
    { provide: MODEL_CONNECTION_CALLS, useFactory: () => connectionCalls() },
  ],
})
export class AppModule {}
