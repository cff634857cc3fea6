import { Controller } from '@nestjs/common';
import { AddKbFileRequest, CallerContext, KbDocumentDeleted, KbDocumentIdRequest, KbDocumentView } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { KnowledgeFilesService } from './knowledge-files.service';

@Controller()
export class KnowledgeFilesHandler {
  constructor(private readonly files: KnowledgeFilesService) {}

  @RpcHandler('knowledge.document.add-file')
  addFile(req: AddKbFileRequest, ctx: CallerContext): Promise<KbDocumentView> {
    return this.files.addFile(ctx, req);
  }

  @RpcHandler('knowledge.document.delete')
  delete(req: KbDocumentIdRequest, ctx: CallerContext): Promise<KbDocumentDeleted> {
    return this.files.delete(ctx, req);
  }
}
