import { DynamicModule, Global, Module, Provider, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type { Logger } from 'pino';
import { BLOB_STORE, createBlobStore } from '@sa/blob-storage';
import { DatabaseModule } from '@sa/db';
import { HttpErrorFilter } from '@sa/edge';
import { MessagingModule } from '@sa/messaging';
import { OpsModule } from '@sa/ops';
import { ConsoleAudit } from './audit/console-audit';
import { ConsoleGuard } from './auth/console.guard';
import { peopleAdminProvider } from './auth/people.providers';
import { SessionCookie } from './auth/session-cookie';
import { Workspaces } from './auth/workspaces';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from './config/console.config';
import { CONSOLE_CONTROLLERS, CONSOLE_HANDLERS } from './console.controllers';
import { CONSOLE_DOCUMENT, createConsoleDocument } from './openapi/console-document';
import { Sessions } from './session/session-views';
import { OauthServer } from './oauth/oauth-server';
import { HandoffMail } from './handoff/handoff-mail.service';
import { SetupService } from './setup/setup.service';
import { SignInThrottleLifecycle, resetMailLimitProvider, signInThrottleProvider } from './session/sign-in-throttle.provider';

@Global()
@Module({})
class ConsoleCoreModule {
  static forRoot(config: ConsoleConfig, logger: Logger): DynamicModule {
    const providers: Provider[] = [
      { provide: CONSOLE_CONFIG, useValue: config },
      { provide: CONSOLE_LOGGER, useValue: logger },
      { provide: SessionCookie, useValue: new SessionCookie(new URL(config.publicUrl).protocol === 'https:') },
      peopleAdminProvider,
      Workspaces,
      ConsoleAudit,
      Sessions,
      signInThrottleProvider,
      resetMailLimitProvider,
      SignInThrottleLifecycle,
      OauthServer,
      HandoffMail,
      SetupService,
      // Uploaded knowledge files (issue 19): put here, read and deleted by the knowledge service.
      { provide: BLOB_STORE, useFactory: () => createBlobStore(config) },
    ];
    return { module: ConsoleCoreModule, providers, exports: [CONSOLE_CONFIG, CONSOLE_LOGGER, SessionCookie, peopleAdminProvider, Workspaces, ConsoleAudit, Sessions, signInThrottleProvider, resetMailLimitProvider, OauthServer, HandoffMail, SetupService, BLOB_STORE] };
  }
}

/**
 * The owner console: the people of workspaces (schema `people`, its own), their sessions, and the
 * JSON API under /api the web application calls; tokens, webhooks and usage are changed and read
 * over NATS with a caller context built from the person's role.
 */
@Module({})
export class AppModule {
  static forRoot(config: ConsoleConfig, logger: Logger, controllers: Type[] = CONSOLE_CONTROLLERS): DynamicModule {
    const module: DynamicModule = {
      module: AppModule,
      imports: [
        ConsoleCoreModule.forRoot(config, logger),
        DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'console' }),
        MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, connectionName: 'console' }),
        OpsModule.forService('console', config),
      ],
      controllers: [...controllers, ...CONSOLE_HANDLERS],
      providers: [
        { provide: APP_FILTER, inject: [CONSOLE_LOGGER], useFactory: (l: Logger) => new HttpErrorFilter(l) },
        { provide: APP_GUARD, useClass: ConsoleGuard },
        // The OpenAPI document, generated from this module's controllers and contracts when the console
        // starts, from a preview of this very module (calling forRoot again would register TypeORM's
        // default data source twice: a warning at every start).
        { provide: CONSOLE_DOCUMENT, useFactory: () => createConsoleDocument(module) },
      ],
    };
    return module;
  }
}
