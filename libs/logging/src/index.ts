export * from './logger';
export * from './nest-logger';
export * from './query-parameters';
