import pino from 'pino';
import { AppModule } from '../app.module';
import { loadConsoleConfig } from '../config/console.config';
import { OpenApiDocument, createConsoleDocument } from './console-document';

let document: Promise<OpenApiDocument> | undefined;

/**
 * The console's OpenAPI document without a running console (what GET /api/openapi.json serves):
 * for tools/console/generate.js and the tests. Built once per process.
 */
export function consoleApiDocument(): Promise<OpenApiDocument> {
  document ??= createConsoleDocument(AppModule.forRoot(loadConsoleConfig({}), pino({ level: 'silent' })));
  return document;
}
