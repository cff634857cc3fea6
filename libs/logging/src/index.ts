export * from './logger';
export * from './nest-logger';
export * from './query-parameters';
export * from './log-format';
export * from './pretty';
