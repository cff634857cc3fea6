export * from './contract-schema';
export * from './openapi-31';
