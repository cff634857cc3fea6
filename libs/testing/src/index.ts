export * from './integration/databases';
export * from './integration/test-database';
export * from './infra/local-services';
export * from './openapi/openapi-test-support';
export * from './http/fake-model-server';
export * from './http/routed-site';
export * from './factories/chat-events';
export * from './integration/domain-errors';
