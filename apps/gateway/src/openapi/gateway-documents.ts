import pino from 'pino';
import { AppModule } from '../app.module';
import { loadGatewayConfig } from '../config/gateway.config';
import { ApiDocuments, createApiDocuments } from './api-documents';

let documents: Promise<ApiDocuments> | undefined;

/**
 * The gateway's OpenAPI documents without a running gateway (what GET /v1/openapi.json and GET
 * /widget/v1/openapi.json serve): for the SDK generator (tools/sdk/generate.js) and the tests.
 * Built once per process.
 */
export function gatewayApiDocuments(): Promise<ApiDocuments> {
  documents ??= createApiDocuments(AppModule.forRoot(loadGatewayConfig({}), pino({ level: 'silent' })));
  return documents;
}
