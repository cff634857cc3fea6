import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreatedWebhookView,
  CreateWebhookRequest,
  DELIVERIES_PAGE_DEFAULT,
  DeliveriesQuery,
  DeliveryParams,
  DeliveryView,
  WebhookParams,
  WebhookSecretView,
  WebhookView,
  WorkspaceParams,
} from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiEmpty, ApiList, ApiView } from '../openapi/console-responses';

/**
 * Webhooks (spec part 6): everyone reads them (each with its last delivery) and their delivery
 * log; owners and admins add, delete, rotate the secret, send a test event and redeliver. The
 * dispatcher does it over NATS (webhook-dispatcher.*), within the workspace of the route.
 */
@ApiTags('Webhooks')
@Controller('api/workspaces/:workspaceId/webhooks')
export class WebhooksController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listWebhooks', summary: 'List webhooks', description: 'Every webhook of the workspace with the status of its last delivery (spec part 6 rule 4).' })
  @ApiList('The webhooks, oldest first.', WebhookView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<{ data: WebhookView[] }> {
    return { data: await this.rpc.send('webhook-dispatcher.webhook.list', {}, workspaceOf(caller).ctx) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'createWebhook', summary: 'Add a webhook', description: 'A public HTTPS endpoint (private addresses and redirects are refused), the chosen events, every bot or one. Its signing secret (`whsec_…`) is shown in this answer only.' })
  @ApiView(201, 'The new webhook, with its secret.', CreatedWebhookView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async create(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(CreateWebhookRequest, 'body')) body: CreateWebhookRequest,
  ): Promise<CreatedWebhookView> {
    const created = await this.rpc.send('webhook-dispatcher.webhook.create', body, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'webhook.created', 'webhook', created.id, { name: created.name, url: created.url, events: created.events, bot_id: created.bot_id });
    return created;
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook', description: 'Deletes the webhook and its delivery log; deliveries not sent yet are dropped.' })
  @ApiEmpty(204, 'Deleted.')
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async delete(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WebhookParams, 'path')) params: WebhookParams): Promise<void> {
    await this.rpc.send('webhook-dispatcher.webhook.delete', { webhook_id: params.webhookId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'webhook.deleted', 'webhook', params.webhookId);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'rotateWebhookSecret', summary: 'Rotate the signing secret', description: 'Replaces the secret at once (deliveries not sent yet are signed with the new one). The new secret is shown in this answer only.' })
  @ApiView(200, 'The new secret.', WebhookSecretView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async rotate(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WebhookParams, 'path')) params: WebhookParams): Promise<WebhookSecretView> {
    const rotated = await this.rpc.send('webhook-dispatcher.webhook.rotate', { webhook_id: params.webhookId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'webhook.secret_rotated', 'webhook', params.webhookId);
    return rotated;
  }

  @Post(':webhookId/test')
  @HttpCode(202)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'sendWebhookTest', summary: 'Send a test event', description: 'Queues a signed `webhook.test` event to the endpoint; its outcome appears in the delivery log.' })
  @ApiView(202, 'The test delivery, queued.', DeliveryView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async test(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WebhookParams, 'path')) params: WebhookParams): Promise<DeliveryView> {
    const queued = await this.rpc.send('webhook-dispatcher.webhook.test', { webhook_id: params.webhookId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'webhook.test_sent', 'webhook', params.webhookId, { delivery_id: queued.id });
    return queued;
  }

  @Get(':webhookId/deliveries')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listDeliveries', summary: 'The delivery log', description: 'Deliveries of the webhook, newest first, each with its attempts (event, status code or error, duration, time).' })
  @ApiList('The deliveries.', DeliveryView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async deliveries(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WebhookParams, 'path')) params: WebhookParams,
    @Query(dto(DeliveriesQuery, 'query')) query: DeliveriesQuery,
  ): Promise<{ data: DeliveryView[] }> {
    return { data: await this.rpc.send('webhook-dispatcher.delivery.list', { webhook_id: params.webhookId, limit: query.limit ?? DELIVERIES_PAGE_DEFAULT }, workspaceOf(caller).ctx) };
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'redeliver', summary: 'Redeliver', description: 'Sends a finished delivery once more, signed afresh. A delivery still pending or being sent answers 409 `conflict`.' })
  @ApiView(202, 'The delivery, queued again.', DeliveryView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async redeliver(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(DeliveryParams, 'path')) params: DeliveryParams): Promise<DeliveryView> {
    const queued = await this.rpc.send('webhook-dispatcher.delivery.redeliver', { delivery_id: params.deliveryId, webhook_id: params.webhookId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'delivery.redelivered', 'delivery', queued.id, { webhook_id: queued.webhook_id, event: queued.event });
    return queued;
  }
}
