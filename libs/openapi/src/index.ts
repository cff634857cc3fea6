/** The OpenAPI bridge: contract classes to schemas, a module's routes to documents (gateway and console). Kept out of libs/edge so that a service that serves no document (mcp) does not load @nestjs/swagger at start. */
export * from './contract-schema';
export * from './openapi-31';
export * from './nest-documents';
