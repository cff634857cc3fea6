export * from './integration/databases';
export * from './infra/local-services';
