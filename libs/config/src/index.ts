export * from './common';
export * from './databases';
export * from './env';
