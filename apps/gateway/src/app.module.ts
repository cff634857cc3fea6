import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { Logger } from 'pino';
import { DatabaseModule } from '@sa/db';
import { IDENTITY_ENTITIES } from '@sa/identity-db';
import { HttpErrorFilter } from '@sa/edge';
import { MessagingModule } from '@sa/messaging';
import { OpsModule } from '@sa/ops';
import { AuthModule } from './auth/auth.module';
import { GATEWAY_LOGGER } from './auth/auth.tokens';
import { BookingsController } from './bookings/bookings.controller';
import { BotsController } from './bots/bots.controller';
import { ChatController } from './chat/chat.controller';
import { ConversationsController } from './conversations/conversations.controller';
import { GATEWAY_CONFIG, GatewayConfig } from './config/gateway.config';
import { HealthController } from './health/health.controller';
import { KbController } from './knowledge/kb.controller';
import { LeadsController } from './leads/leads.controller';
import { API_DOCUMENTS, createApiDocuments } from './openapi/api-documents';
import { OpenApiController } from './openapi/openapi.controller';
import { ChatStreamer } from './chat/chat-streamer';
import { WidgetAccess } from './widget/widget-access';
import { HandoffReplies } from './widget/handoff-replies';
import { WidgetController } from './widget/widget.controller';
import { WidgetEmbedModule } from './widget/embed-asset';

@Global()
@Module({})
class GatewayCoreModule {
  static forRoot(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: GatewayCoreModule,
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: GATEWAY_LOGGER, useValue: logger },
      ],
      exports: [GATEWAY_CONFIG, GATEWAY_LOGGER],
    };
  }
}

/** The public edge: identity (its own schema), auth, rate limits, validation, routing over NATS. */
@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, logger: Logger): DynamicModule {
    const module: DynamicModule = {
      module: AppModule,
      imports: [
        GatewayCoreModule.forRoot(config, logger),
        DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'gateway', entities: IDENTITY_ENTITIES }),
        MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, connectionName: 'gateway' }),
        OpsModule.forService('gateway', config),
        AuthModule,
        WidgetEmbedModule,
      ],
      controllers: [HealthController, OpenApiController, BotsController, KbController, ChatController, ConversationsController, BookingsController, LeadsController, WidgetController],
      providers: [
        { provide: APP_FILTER, inject: [GATEWAY_LOGGER], useFactory: (logger: Logger) => new HttpErrorFilter(logger) },
        ChatStreamer,
        WidgetAccess,
        HandoffReplies,
        // The OpenAPI documents, generated from this module's controllers and contracts when the gateway
        // starts, from a preview of this very module (calling forRoot again would register TypeORM's
        // default data source twice: a warning at every start).
        { provide: API_DOCUMENTS, useFactory: () => createApiDocuments(module) },
      ],
    };
    return module;
  }
}
