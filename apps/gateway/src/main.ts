import 'reflect-metadata';
import { MicroserviceOptions } from '@nestjs/microservices';
import { createEdgeApp, serveHttp } from '@sa/edge';
import { createLogger } from '@sa/logging';
import { DrainingNatsServer, RpcClient } from '@sa/messaging';
import { installChannelWebhooks } from './channels/channel-webhooks';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config/gateway.config';
import { WIDGET_ROUTES, WidgetAccess } from './widget/widget-access';
import { installWidgetCors } from './widget/widget-cors';
import { countWidgetRefusals } from './widget/widget-refusals';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', { level: config.logLevel });
  // CORS (CORS_ALLOWED_ORIGINS) for the REST API; the widget routes grant the origins of their bot (widget-cors.ts).
  const cors = { paths: ['/v1'], allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'] };
  const app = await createEdgeApp(AppModule.forRoot(config, logger), config, logger, cors);
  const access = app.get(WidgetAccess);
  installWidgetCors(app.getHttpAdapter().getInstance(), (botId) => access.bot(botId));
  countWidgetRefusals(app.getHttpAdapter().getInstance(), WIDGET_ROUTES);
  installChannelWebhooks(app.getHttpAdapter().getInstance(), { rpc: app.get(RpcClient), timeoutMs: config.channelWebhookTimeoutMs, logger });
  // The owner of schema `identity` answers identity.* for the processes that do not own it (MCP,
  // the webhook dispatcher), in the NATS queue group `gateway`.
  app.connectMicroservice<MicroserviceOptions>({
    strategy: new DrainingNatsServer(
      { servers: [config.natsUrl], queue: 'gateway', name: `gateway-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
      config.shutdownGraceMs,
      logger,
    ),
  });
  await app.startAllMicroservices();
  await serveHttp(app, { port: config.port, host: config.host, graceMs: config.shutdownGraceMs, logger });
  logger.info({ url: `http://${config.host}:${config.port}/v1` }, 'gateway listening');
}

bootstrap().catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
