import { Controller, Inject } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CallerContext,
  CreatedWebhookView,
  CreateWebhookRequest,
  DeliveryIdRequest,
  DeliveryView,
  ListDeliveriesRequest,
  ListWebhooksRequest,
  WebhookIdRequest,
  WebhookSecretView,
  WebhookView,
} from '@sa/contracts';
import { BadRequest, DomainError, NotFound } from '@sa/errors';
import { NatsIdentitySource } from '@sa/identity';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { OutboundPolicy } from '@sa/net-guard';
import { DeliveryView as RegistryDeliveryView, SecretBox, WebhookAdmin, WebhookInputError, WebhookNotFoundError, WebhookStateError } from '@sa/webhook-registry';
import { DISPATCHER_CONFIG, DISPATCHER_POLICY, WebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { SECRET_BOX } from '../delivery/delivery-engine';

/** Deliveries listed when the request does not say (the console's delivery log). */
export const DELIVERIES_LIST_DEFAULT = 50;

/**
 * Webhooks managed by a workspace's people (the console; spec part 6 rule 1): the same
 * WebhookAdmin as the admin CLI, every id checked against the caller's workspace (ctx.tenantId:
 * another workspace's webhook or delivery is not found). A test event and a redeliver are queued
 * here and sent by the delivery engine of whichever dispatcher takes them.
 */
@Controller()
export class WebhooksHandler {
  private readonly identity: NatsIdentitySource;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly rpc: RpcClient,
    @Inject(SECRET_BOX) private readonly secrets: SecretBox,
    @Inject(DISPATCHER_POLICY) private readonly policy: OutboundPolicy,
    @Inject(DISPATCHER_CONFIG) private readonly config: Pick<WebhookDispatcherConfig, 'maxPerWorkspace'>,
  ) {
    this.identity = new NatsIdentitySource(rpc);
  }

  @RpcHandler('webhook-dispatcher.webhook.create')
  async create(req: CreateWebhookRequest, ctx: CallerContext): Promise<CreatedWebhookView> {
    const created = await domainErrors(() =>
      this.admin(ctx).create({ workspaceId: ctx.tenantId, name: req.name ?? null, url: req.url, events: req.events, botId: req.bot_id ?? null }),
    );
    const { workspace_id: _w, ...view } = created;
    return { ...view, last_delivery: null };
  }

  @RpcHandler('webhook-dispatcher.webhook.list')
  async list(_req: ListWebhooksRequest, ctx: CallerContext): Promise<WebhookView[]> {
    return (await domainErrors(() => this.admin(ctx).list(ctx.tenantId))).map(({ workspace_id: _w, ...view }) => view);
  }

  @RpcHandler('webhook-dispatcher.webhook.delete')
  delete(req: WebhookIdRequest, ctx: CallerContext): Promise<{ id: string; deleted: true }> {
    return domainErrors(() => this.admin(ctx).delete(req.webhook_id, ctx.tenantId));
  }

  @RpcHandler('webhook-dispatcher.webhook.rotate')
  rotate(req: WebhookIdRequest, ctx: CallerContext): Promise<WebhookSecretView> {
    return domainErrors(() => this.admin(ctx).rotateSecret(req.webhook_id, ctx.tenantId));
  }

  @RpcHandler('webhook-dispatcher.webhook.test')
  async test(req: WebhookIdRequest, ctx: CallerContext): Promise<DeliveryView> {
    return deliveryView(await domainErrors(() => this.admin(ctx).sendTest(req.webhook_id, ctx.tenantId)));
  }

  @RpcHandler('webhook-dispatcher.delivery.list')
  async deliveries(req: ListDeliveriesRequest, ctx: CallerContext): Promise<DeliveryView[]> {
    const list = await domainErrors(() => this.admin(ctx).deliveries(req.webhook_id, { workspaceId: ctx.tenantId, limit: req.limit ?? DELIVERIES_LIST_DEFAULT }));
    return list.map(deliveryView);
  }

  @RpcHandler('webhook-dispatcher.delivery.redeliver')
  async redeliver(req: DeliveryIdRequest, ctx: CallerContext): Promise<DeliveryView> {
    return deliveryView(await domainErrors(() => this.admin(ctx).redeliver(req.delivery_id, ctx.tenantId, req.webhook_id)));
  }

  /** The workspace's plan is the gateway's data, its bots the bots service's: both asked over NATS. */
  private admin(ctx: CallerContext): WebhookAdmin {
    return new WebhookAdmin(
      this.ds,
      { policy: this.policy, secrets: this.secrets, maxPerWorkspace: this.config.maxPerWorkspace },
      {
        workspace: (id) => this.identity.workspace(id),
        isBotOf: async (_workspaceId, botId) => (await this.rpc.send('bots.bot.check', { ids: [botId] }, ctx)).found.includes(botId),
      },
    );
  }
}

function deliveryView({ workspace_id: _w, ...view }: RegistryDeliveryView): DeliveryView {
  return view;
}

/**
 * WebhookAdmin speaks to operators (its messages name the CLI's flags); over NATS its refusals
 * become domain errors: not found (404), a delivery still open (409), anything else 400.
 */
async function domainErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof WebhookNotFoundError) throw new NotFound(err.what);
    if (err instanceof WebhookStateError) throw new DomainError('conflict', err.message);
    if (err instanceof WebhookInputError) throw new BadRequest(err.message.replace(/--([a-z]+)\b/g, '$1'));
    throw err;
  }
}
