export * from './data-source';
export * from './database.module';
export * from './pg-listener';
export * from './query-logger';
export * from './hot-query';
export * from './checkout';
export * from './claim-loop';
