import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { DEFAULT_NATS_URL, appDatabaseUrl } from '@sa/config';
import { CallerContext, EmailView, Scope } from '@sa/contracts';
import { createDataSource } from '@sa/db';
import { WorkspaceFacts, entitlementsOf, mergePlanLimits } from '@sa/identity';
import { AdminInputError, BotDirectory, DbIdentitySource, IDENTITY_ENTITIES } from '@sa/identity-db';
import { RpcClient } from '@sa/messaging';
import type { WebhookAdminDirectory } from '@sa/webhook-registry';

type Env = Record<string, string | undefined>;

/**
 * Where the admin CLI finds each service's data. It writes identity as the gateway
 * (GATEWAY_DATABASE_URL) and webhook registrations as the webhook-dispatcher
 * (WEBHOOK_DISPATCHER_DATABASE_URL), people and the audit log as the console (CONSOLE_DATABASE_URL),
 * each else DATABASE_URL with that app's role; whatever belongs to another service it asks of that service
 * over NATS (NATS_URL), as the services ask each other.
 */
export function adminTargets(source: Env = process.env) {
  return {
    // As the owners connect: <APP>_DATABASE_URL, else DATABASE_URL with the owner's role as user.
    identityDatabaseUrl: appDatabaseUrl('gateway', source),
    webhooksDatabaseUrl: appDatabaseUrl('webhook-dispatcher', source),
    peopleDatabaseUrl: appDatabaseUrl('console', source),
    natsUrl: source['NATS_URL'] || DEFAULT_NATS_URL,
    rpcTimeoutMs: Number(source['RPC_TIMEOUT_MS']) > 0 ? Number(source['RPC_TIMEOUT_MS']) : 5000,
  };
}

/**
 * The caller context of an operator acting on one workspace through the CLI: no token, only the
 * scopes the operation needs. Entitlements follow the plan defaults and the workspace's own
 * overrides (PLAN_LIMITS is the edges' setting; nothing the CLI asks depends on it).
 */
export function operatorContext(workspace: WorkspaceFacts, scopes: Scope[]): CallerContext {
  return { tenantId: workspace.id, tokenId: null, scopes, botIds: null, requestId: `admin-cli-${randomUUID()}`, entitlements: entitlementsOf(workspace, mergePlanLimits(undefined)) };
}

/** The CLI's connections, each opened on first use (a command that needs no NATS works without it). */
export class AdminConnections {
  private readonly sources = new Map<string, Promise<DataSource>>();
  private rpcClient: Promise<{ rpc: RpcClient; close: () => Promise<void> }> | null = null;

  constructor(
    private readonly targets: ReturnType<typeof adminTargets>,
    private readonly logger: Logger,
  ) {}

  /** Schema `identity`, as the gateway (its owner). */
  identity(): Promise<DataSource> {
    return this.dataSource(this.targets.identityDatabaseUrl);
  }

  /** Schema `webhooks`, as the webhook dispatcher (its owner). */
  webhooks(): Promise<DataSource> {
    return this.dataSource(this.targets.webhooksDatabaseUrl);
  }

  /** Schema `people` (persons, memberships, the audit log), as the console (its owner). */
  people(): Promise<DataSource> {
    return this.dataSource(this.targets.peopleDatabaseUrl);
  }

  async rpc(): Promise<RpcClient> {
    this.rpcClient ??= connect({ servers: this.targets.natsUrl, name: 'admin-cli', timeout: this.targets.rpcTimeoutMs }).then(
      (nc) => ({ rpc: new RpcClient(nc, this.targets.rpcTimeoutMs), close: () => nc.drain() }),
      (err: unknown) => {
        throw new Error(`cannot reach NATS at ${this.targets.natsUrl} (${(err as Error).message}); this command asks a running service`);
      },
    );
    return (await this.rpcClient).rpc;
  }

  async close(): Promise<void> {
    const opened = [...this.sources.values()];
    this.sources.clear();
    for (const ds of await Promise.allSettled(opened)) if (ds.status === 'fulfilled') await ds.value.destroy();
    const nats = await this.rpcClient?.catch(() => null);
    this.rpcClient = null;
    await nats?.close().catch(() => undefined);
  }

  private dataSource(url: string): Promise<DataSource> {
    let ds = this.sources.get(url);
    if (!ds) {
      ds = createDataSource({ url, applicationName: 'admin-cli', entities: IDENTITY_ENTITIES, poolSize: 2, logger: this.logger });
      this.sources.set(url, ds);
    }
    return ds;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A workspace's facts from schema `identity`, or the operator's error when there is none. */
export async function requireWorkspace(connections: AdminConnections, id: string): Promise<WorkspaceFacts> {
  if (!UUID.test(id)) throw new AdminInputError(`--workspace must be a uuid (got "${id}")`);
  const workspace = await new DbIdentitySource(await connections.identity()).workspace(id);
  if (!workspace) throw new AdminInputError(`no workspace with id ${id}`);
  return workspace;
}

/** Which bots exist in a workspace: the bots service's answer (bots.bot.check). */
export function botDirectory(connections: AdminConnections): BotDirectory {
  return async (workspace, ids) => (await (await connections.rpc()).send('bots.bot.check', { ids }, operatorContext(workspace, ['bots:read']))).found;
}

/** The workspace's plan from identity, its bots from the bots service. */
export function webhookDirectory(connections: AdminConnections): WebhookAdminDirectory {
  const bots = botDirectory(connections);
  return {
    workspace: async (id) => new DbIdentitySource(await connections.identity()).workspace(id),
    isBotOf: async (workspaceId, botId) => (await bots(await requireWorkspace(connections, workspaceId), [botId])).includes(botId),
  };
}

/** `mail list`: the visitor e-mails of a workspace, from the bookings service (bookings.email.list). */
export async function listMail(connections: AdminConnections, workspaceId: string): Promise<EmailView[]> {
  const workspace = await requireWorkspace(connections, workspaceId);
  return (await connections.rpc()).send('bookings.email.list', {}, operatorContext(workspace, ['bookings:read']));
}
