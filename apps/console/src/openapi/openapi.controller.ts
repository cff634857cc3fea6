import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ConsoleRoute } from '../auth/console-route.decorator';
import { CONSOLE_DOCUMENT, OpenApiDocument } from './console-document';

/** GET /api/openapi.json: the console API's description, generated when the console starts. */
@ApiTags('Meta')
@Controller('api')
export class ConsoleOpenApiController {
  constructor(@Inject(CONSOLE_DOCUMENT) private readonly document: OpenApiDocument) {}

  @Get('openapi.json')
  @ConsoleRoute('public')
  @ApiOperation({ operationId: 'getOpenApiDocument', summary: 'Get this API description', description: 'Returns this API as an OpenAPI 3.1 document. No session needed.' })
  @ApiResponse({ status: 200, description: 'The OpenAPI 3.1.0 document.', schema: { type: 'object', description: 'An OpenAPI 3.1.0 document.' } })
  openapi(): OpenApiDocument {
    return this.document;
  }
}
