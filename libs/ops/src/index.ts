export * from './ops-server';
export * from './ops.module';
