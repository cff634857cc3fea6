import 'reflect-metadata';
import { MicroserviceOptions } from '@nestjs/microservices';
import { createEdgeApp, serveHttp } from '@sa/edge';
import { createLogger } from '@sa/logging';
import { DrainingNatsServer } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadMcpConfig } from './config/mcp.config';
import { installProtectedResource } from './http/protected-resource';
import { ToolServerFactory } from './tools/tool-server';

/**
 * The MCP server: HTTP (Streamable HTTP at /mcp) for agents, plus the NATS queue group `mcp` so
 * the gateway's readiness check reaches it like every other service.
 */
async function bootstrap(): Promise<void> {
  const config = loadMcpConfig();
  const logger = createLogger('mcp', { level: config.logLevel });
  const cors = { paths: ['/mcp'], allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID'] };
  const app = await createEdgeApp(AppModule.forRoot(config, logger), config, logger, cors);
  installProtectedResource(app.getHttpAdapter().getInstance(), config);
  app.connectMicroservice<MicroserviceOptions>({
    strategy: new DrainingNatsServer(
      { servers: [config.natsUrl], queue: 'mcp', name: `mcp-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
      config.shutdownGraceMs,
      logger,
    ),
  });
  await app.startAllMicroservices();
  await serveHttp(app, { port: config.port, host: config.host, graceMs: config.shutdownGraceMs, logger });
  logger.info({ url: `http://${config.host}:${config.port}/mcp`, resource: config.resourceUrl }, 'MCP server listening');
  // The tools' listing is made now that the server is ready, not before (a first tools/list that
  // comes sooner makes it itself); a failure here is logged and retried by that first call.
  app
    .get(ToolServerFactory)
    .listing()
    .catch((err: unknown) => logger.error({ err }, 'the tools listing could not be made'));
}

bootstrap().catch((err: unknown) => {
  process.stderr.write(`mcp failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
