export * from './guard-error';
export * from './ip-address';
export * from './outbound-policy';
export * from './check-url';
export * from './guarded-fetch';
export * from './guarded-model-fetch';
