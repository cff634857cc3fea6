import { Controller } from '@nestjs/common';
import { CallerContext, IngestKbRequest, KbDocumentView, KbIngestAccepted, ListKbRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { DocumentsService } from './documents.service';

@Controller()
export class DocumentsHandler {
  constructor(private readonly documents: DocumentsService) {}

  @RpcHandler('knowledge.document.ingest')
  ingest(req: IngestKbRequest, ctx: CallerContext): Promise<KbIngestAccepted> {
    return this.documents.ingest(ctx, req);
  }

  @RpcHandler('knowledge.document.list')
  list(req: ListKbRequest, ctx: CallerContext): Promise<KbDocumentView[]> {
    return this.documents.list(ctx, req);
  }
}
