export * from './common';
export * from './databases';
export * from './env';
export * from './compile-cache';
