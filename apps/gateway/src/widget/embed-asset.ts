import { Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { WidgetAsset, loadWidgetAsset, widgetAssetFile } from '@sa/widget-asset';
import { GATEWAY_LOGGER } from '../auth/auth.tokens';
import { WidgetEmbedController } from './embed.controller';
import { WIDGET_ASSET } from './embed.tokens';

/**
 * The built widget, read once when the gateway starts. Missing (not built): the gateway runs on,
 * its embed routes answer 404, and this is logged once here.
 */
export function readWidgetAsset(logger: Pick<Logger, 'warn' | 'info'>, root?: string): WidgetAsset | null {
  try {
    const asset = loadWidgetAsset(root);
    logger.info({ version: asset.version, bytes: asset.code.length }, 'widget script loaded');
    return asset;
  } catch (err) {
    logger.warn({ file: widgetAssetFile(root), err: (err as NodeJS.ErrnoException).code ?? String(err) }, 'widget script not found: /widget/v1/embed.js answers 404 (build it with node tools/build.js)');
    return null;
  }
}

@Module({
  controllers: [WidgetEmbedController],
  providers: [{ provide: WIDGET_ASSET, inject: [GATEWAY_LOGGER], useFactory: (logger: Logger) => readWidgetAsset(logger) }],
})
export class WidgetEmbedModule {}
