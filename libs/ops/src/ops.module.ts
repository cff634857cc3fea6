import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { createLogger } from '@sa/logging';
import type { DataSource } from 'typeorm';
import { NATS_CONNECTION } from '@sa/messaging';
import { enableProcessMetrics } from '@sa/metrics';
import { OpsServer, ReadinessCheck } from './ops-server';

export interface OpsOptions {
  service: string;
  host: string;
  port: number;
  checkTimeoutMs: number;
  logger: Logger;
  /** App-specific checks besides NATS and PostgreSQL (which are found by themselves). */
  extraChecks?: ReadinessCheck[];
  /**
   * False for an app without a database (the MCP server): no PostgreSQL check is looked for, and
   * @nestjs/typeorm, which loads all of TypeORM, is not loaded at start. Default true.
   */
  database?: boolean;
}

const OPS_OPTIONS = Symbol('OPS_OPTIONS');

/** NATS: the connection is open and a round trip to the server completes. */
export const natsCheck = (nc: NatsConnection): ReadinessCheck => ({
  name: 'nats',
  check: async () => {
    if (nc.isClosed()) throw new Error('connection closed');
    await nc.flush();
  },
});

/** PostgreSQL: `SELECT 1` through the app's pool. */
export const postgresCheck = (ds: DataSource): ReadinessCheck => ({
  name: 'postgres',
  check: async () => {
    if (!ds.isInitialized) throw new Error('not connected');
    await ds.query('SELECT 1');
  },
});

@Injectable()
class OpsLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private server: OpsServer | null = null;

  constructor(
    @Inject(OPS_OPTIONS) private readonly opts: OpsOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    enableProcessMetrics(this.opts.service);
    const checks: ReadinessCheck[] = [];
    const nc = this.optional<NatsConnection>(NATS_CONNECTION);
    if (nc) checks.push(natsCheck(nc));
    if (this.opts.database !== false) {
      const { getDataSourceToken } = require('@nestjs/typeorm') as typeof import('@nestjs/typeorm');
      const ds = this.optional<DataSource>(getDataSourceToken());
      if (ds) checks.push(postgresCheck(ds));
    }
    checks.push(...(this.opts.extraChecks ?? []));
    this.server = new OpsServer({ ...this.opts, checks });
    await this.server.start();
    // Not ready from the first moment of a shutdown, before any hook runs.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => this.server?.markShuttingDown());
  }

  /** First thing on SIGTERM: report not ready, so no new work is routed here. */
  beforeApplicationShutdown(): void {
    this.server?.markShuttingDown();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  private optional<T>(token: unknown): T | null {
    try {
      return this.moduleRef.get<T>(token as never, { strict: false });
    } catch {
      return null;
    }
  }
}

/** `/healthz`, `/readyz` and `/metrics` on OPS_PORT for one app (see OpsServer). */
@Global()
@Module({})
export class OpsModule {
  static forRoot(opts: OpsOptions): DynamicModule {
    return { module: OpsModule, providers: [{ provide: OPS_OPTIONS, useValue: opts }, OpsLifecycle] };
  }

  /** The usual wiring: OPS_HOST, OPS_PORT and READY_CHECK_TIMEOUT_MS from the app's config. */
  static forService(
    service: string,
    config: { opsHost: string; opsPort: number; readyCheckTimeoutMs: number; logLevel: string },
    extraChecks: ReadinessCheck[] = [],
    opts: { database?: boolean } = {},
  ): DynamicModule {
    return OpsModule.forRoot({
      service,
      host: config.opsHost,
      port: config.opsPort,
      checkTimeoutMs: config.readyCheckTimeoutMs,
      logger: createLogger(service, { level: config.logLevel }),
      extraChecks,
      database: opts.database,
    });
  }
}
