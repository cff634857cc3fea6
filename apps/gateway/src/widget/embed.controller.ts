import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@sa/errors';
import type { WidgetAsset } from '@sa/widget-asset';
import { Public } from '../auth/route-access.decorator';
import { WIDGET_ASSET } from './embed.tokens';

const URL_PATH = '/widget/v1/embed.js';

/**
 * The visitor widget's script, for any website: GET /widget/v1/embed.js (an hour's cache, ETag),
 * GET /widget/v1/embed.<hash>.js (the same bytes under a content-addressed name: cached for a year,
 * immutable; pair it with `integrity`), GET /widget/v1/embed.json (version, both paths, SRI hash).
 * Read once at start (libs/widget-asset); when the gateway has no built widget these answer 404.
 * Any origin may load them (`Access-Control-Allow-Origin: *`, `Cross-Origin-Resource-Policy:
 * cross-origin`): they are public files, and `integrity` needs a CORS response. Not in the widget
 * API's OpenAPI document: files, not API.
 */
@ApiExcludeController()
@Controller('widget/v1')
export class WidgetEmbedController {
  constructor(@Inject(WIDGET_ASSET) private readonly asset: WidgetAsset | null) {}

  private built(): WidgetAsset {
    if (!this.asset) throw new DomainError('not_found', 'The widget script is not available on this server: it was not built (node tools/build.js)');
    return this.asset;
  }

  private common(reply: FastifyReply, cacheControl: string): FastifyReply {
    return reply
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('cache-control', cacheControl);
  }

  private script(req: FastifyRequest, reply: FastifyReply, asset: WidgetAsset, cacheControl: string): void {
    const etag = `"${asset.version}"`;
    this.common(reply, cacheControl).header('etag', etag);
    if (matches(req.headers['if-none-match'], etag)) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).header('content-type', 'text/javascript; charset=utf-8').send(asset.code);
  }

  @Get('embed.js')
  @Public()
  embed(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    this.script(req, reply, this.built(), 'public, max-age=3600');
  }

  @Get('embed.json')
  @Public()
  manifest(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    const asset = this.built();
    const etag = `"${asset.version}"`;
    this.common(reply, 'no-cache').header('etag', etag);
    if (matches(req.headers['if-none-match'], etag)) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).send({ version: asset.version, url_path: URL_PATH, hashed_path: `/widget/v1/${asset.hashedName}`, integrity: asset.integrity });
  }

  @Get(':file')
  @Public()
  hashed(@Param('file') file: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    const asset = this.built();
    if (file !== asset.hashedName) {
      throw new DomainError('not_found', /^embed\.[0-9a-f]{10}\.js$/.test(file) ? 'No such version of the widget script on this server: use /widget/v1/embed.json for the current one' : 'Not found');
    }
    this.script(req, reply, asset, 'public, max-age=31536000, immutable');
  }
}

/** If-None-Match: a list of entity tags, or `*`. */
function matches(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  return value.trim() === '*' || value.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
