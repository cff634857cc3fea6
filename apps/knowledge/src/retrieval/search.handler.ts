import { Controller } from '@nestjs/common';
import { CallerContext, PassageView, SearchKnowledgeRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { SearchService } from './search.service';

@Controller()
export class SearchHandler {
  constructor(private readonly search: SearchService) {}

  @RpcHandler('knowledge.passage.search')
  find(req: SearchKnowledgeRequest, ctx: CallerContext): Promise<PassageView[]> {
    return this.search.search(ctx, req);
  }
}
