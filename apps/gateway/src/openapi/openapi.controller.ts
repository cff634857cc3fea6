import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/route-access.decorator';
import { API_DOCUMENTS, ApiDocuments, OpenApiDocument } from './api-documents';
import { ApiShared } from './api-responses';

const DESCRIPTION = 'Returns this API as an OpenAPI 3.1 document. No authentication; requests without a token are rate-limited per client address.';
const DOCUMENT = { status: 200, description: 'The OpenAPI 3.1.0 document.', schema: { type: 'object', description: 'An OpenAPI 3.1.0 document.' } };

/**
 * The API descriptions, OpenAPI 3.1.0, no authentication: GET /v1/openapi.json for the REST API
 * (spec part 9) and GET /widget/v1/openapi.json for the visitor widget API (ours). One controller
 * without a prefix, so both routes are registered wherever it is. The documents are generated
 * once, when the gateway starts (api-documents.ts).
 */
@ApiTags('Meta')
@Controller()
export class OpenApiController {
  constructor(@Inject(API_DOCUMENTS) private readonly documents: ApiDocuments) {}

  @Get('v1/openapi.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({ operationId: 'getOpenApiDocument', summary: 'Get this API description', description: DESCRIPTION })
  @ApiResponse({ ...DOCUMENT })
  @ApiShared('TooManyRequests')
  openapi(): OpenApiDocument {
    return this.documents.rest;
  }

  @Get('widget/v1/openapi.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({ operationId: 'getWidgetOpenApiDocument', summary: 'Get this API description', description: DESCRIPTION })
  @ApiResponse({ ...DOCUMENT })
  @ApiShared('TooManyRequests')
  widgetOpenapi(): OpenApiDocument {
    return this.documents.widget;
  }
}
