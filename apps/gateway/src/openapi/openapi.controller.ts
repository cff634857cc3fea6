import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/route-access.decorator';
import { buildOpenApiDocument } from './openapi.document';

/** GET /v1/openapi.json: the API description, OpenAPI 3.1.0, no authentication (spec part 9). */
@Controller('v1')
export class OpenApiController {
  private readonly document = buildOpenApiDocument();

  @Get('openapi.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  openapi(): Record<string, unknown> {
    return this.document;
  }
}
