import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { metricsRegistry } from '@sa/metrics';

/** One dependency readiness depends on: resolves when reachable, rejects (or times out) when not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export interface OpsServerOptions {
  service: string;
  host: string;
  /** 0 picks a free port (logged). */
  port: number;
  checks: ReadinessCheck[];
  checkTimeoutMs: number;
  logger: Logger;
}

/**
 * Every app's operations endpoint, on its own port (OPS_PORT), never behind the public Ingress:
 * - `GET /healthz`: the process is up and its event loop answers (liveness);
 * - `GET /readyz`: every dependency (NATS, PostgreSQL, …) answers within the timeout, and the app
 *   is not shutting down (readiness: 503 otherwise, with which check failed);
 * - `GET /metrics`: Prometheus text format.
 */
export class OpsServer {
  private server: http.Server | null = null;
  private shuttingDown = false;

  constructor(private readonly opts: OpsServerOptions) {}

  async start(): Promise<number> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.opts.logger.info({ url: `http://${this.opts.host}:${port}` }, 'ops endpoint listening (/healthz, /readyz, /metrics)');
    return port;
  }

  /** From now on /readyz answers 503: the app is draining. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async readiness(): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const results = await Promise.all(
      this.opts.checks.map(async (c) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            c.check(),
            new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${this.opts.checkTimeoutMs} ms`)), this.opts.checkTimeoutMs))),
          ]);
          return [c.name, 'up'] as const;
        } catch (err) {
          return [c.name, `down: ${(err as Error).message}`] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const checks: Record<string, string> = Object.fromEntries(results);
    if (this.shuttingDown) checks['shutdown'] = 'in progress';
    return { ready: !this.shuttingDown && results.every(([, s]) => s === 'up'), checks };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'Method Not Allowed' });
      if (path === '/healthz') return json(200, { status: 'ok', service: this.opts.service });
      if (path === '/readyz') {
        const { ready, checks } = await this.readiness();
        return json(ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', service: this.opts.service, checks });
      }
      if (path === '/metrics') {
        const body = await metricsRegistry.metrics();
        res.writeHead(200, { 'content-type': metricsRegistry.contentType });
        res.end(body);
        return;
      }
      json(404, { error: 'Not Found' });
    } catch (err) {
      this.opts.logger.error({ err }, 'ops endpoint failed');
      if (!res.headersSent) json(500, { error: 'Internal Server Error' });
      else res.end();
    }
  }
}
