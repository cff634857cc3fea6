export * from './common';
export * from './env';
