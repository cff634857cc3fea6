export * from './domain-error';
export * from './http-mapping';
