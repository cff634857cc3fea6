import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/route-access.decorator';
import { buildOpenApiDocument } from './openapi.document';
import { buildWidgetOpenApiDocument } from './widget-openapi.document';

/**
 * The API descriptions, OpenAPI 3.1.0, no authentication: GET /v1/openapi.json for the REST API
 * (spec part 9) and GET /widget/v1/openapi.json for the visitor widget API (ours). One controller
 * without a prefix, so both routes are registered wherever it is.
 */
@Controller()
export class OpenApiController {
  private readonly document = buildOpenApiDocument();
  private readonly widgetDocument = buildWidgetOpenApiDocument();

  @Get('v1/openapi.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  openapi(): Record<string, unknown> {
    return this.document;
  }

  @Get('widget/v1/openapi.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  widgetOpenapi(): Record<string, unknown> {
    return this.widgetDocument;
  }
}
