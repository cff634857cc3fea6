export * from './contract-schema';
export * from './openapi-31';
export * from './nest-documents';
