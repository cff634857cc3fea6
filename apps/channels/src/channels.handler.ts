import { Controller } from '@nestjs/common';
import {
  CallerContext,
  ChannelConnectionIdRequest,
  ChannelConnectionView,
  ChannelConnectionsRequest,
  ChannelWebhookReply,
  ChannelWebhookRequest,
  CreateChannelConnectionRequest,
  UpdateChannelConnectionRequest,
} from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { ConnectionsService } from './connections/connections.service';
import { WebhookService } from './inbound/webhook.service';

/**
 * channels.* (issue 35): a bot's connections (the console checks roles and writes the audit log)
 * and the providers' webhooks, which the gateway forwards without a caller (the signature, checked
 * here with the connection's secret, is the provider's credential).
 */
@Controller()
export class ChannelsHandler {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly webhooks: WebhookService,
  ) {}

  @RpcHandler('channels.connection.list')
  list(req: ChannelConnectionsRequest, ctx: CallerContext): Promise<ChannelConnectionView[]> {
    return this.connections.list(ctx, req.botId);
  }

  @RpcHandler('channels.connection.create')
  create(req: CreateChannelConnectionRequest, ctx: CallerContext): Promise<ChannelConnectionView> {
    return this.connections.create(ctx, req);
  }

  @RpcHandler('channels.connection.update')
  update(req: UpdateChannelConnectionRequest, ctx: CallerContext): Promise<ChannelConnectionView> {
    return this.connections.update(ctx, req);
  }

  @RpcHandler('channels.connection.delete')
  delete(req: ChannelConnectionIdRequest, ctx: CallerContext): Promise<ChannelConnectionView> {
    return this.connections.delete(ctx, req.botId, req.connectionId);
  }

  @RpcHandler('channels.webhook.receive')
  receive(req: ChannelWebhookRequest): Promise<ChannelWebhookReply> {
    return this.webhooks.receive(req);
  }
}
