import { Controller } from '@nestjs/common';
import { AddKbQaRequest, CallerContext, IngestKbRequest, KbDocumentView, KbIngestAccepted, ListKbRequest, PageUsageView, ResyncKbRequest, ScheduleKbRequest, UsageRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';

@Controller()
export class DocumentsHandler {
  constructor(
    private readonly documents: DocumentsService,
    private readonly repository: DocumentsRepository,
  ) {}

  @RpcHandler('knowledge.document.ingest')
  ingest(req: IngestKbRequest, ctx: CallerContext): Promise<KbIngestAccepted> {
    return this.documents.ingest(ctx, req);
  }

  @RpcHandler('knowledge.document.list')
  list(req: ListKbRequest, ctx: CallerContext): Promise<KbDocumentView[]> {
    return this.documents.list(ctx, req);
  }

  @RpcHandler('knowledge.document.add-qa')
  addQa(req: AddKbQaRequest, ctx: CallerContext): Promise<KbDocumentView> {
    return this.documents.addQa(ctx, req);
  }

  @RpcHandler('knowledge.document.resync')
  resync(req: ResyncKbRequest, ctx: CallerContext): Promise<KbDocumentView> {
    return this.documents.resync(ctx, req);
  }

  @RpcHandler('knowledge.document.schedule')
  schedule(req: ScheduleKbRequest, ctx: CallerContext): Promise<KbDocumentView> {
    return this.documents.schedule(ctx, req);
  }

  /**
   * knowledge.usage.get: pages stored per bot, the quantity the `pages per bot` limit counts
   * (documents that did not fail). Workspace-wide documents (no bot) are not a bot's pages.
   */
  @RpcHandler('knowledge.usage.get')
  async usage(_req: UsageRequest, ctx: CallerContext): Promise<PageUsageView> {
    const bots = await this.repository.pagesPerBot(ctx.tenantId);
    return { bots: ctx.botIds ? bots.filter((b) => ctx.botIds!.includes(b.bot_id)) : bots };
  }
}
