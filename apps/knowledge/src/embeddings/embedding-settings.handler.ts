import { Controller } from '@nestjs/common';
import { CallerContext, EmbeddingSettingsRequest, EmbeddingSettingsView, UpdateEmbeddingSettingsRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { EmbeddingSettingsService } from './embedding-settings.service';

@Controller()
export class EmbeddingSettingsHandler {
  constructor(private readonly settings: EmbeddingSettingsService) {}

  @RpcHandler('knowledge.embedding.get')
  get(_req: EmbeddingSettingsRequest, ctx: CallerContext): Promise<EmbeddingSettingsView> {
    return this.settings.get(ctx);
  }

  @RpcHandler('knowledge.embedding.update')
  update(req: UpdateEmbeddingSettingsRequest, ctx: CallerContext): Promise<EmbeddingSettingsView> {
    return this.settings.update(ctx, req);
  }
}
