export * from './bootstrap';
export * from './health.controller';
export * from './messaging.module';
export * from './rpc-client';
export * from './rpc-handler.decorator';
export * from './validate-envelope';
export * from './draining-nats-server';
export * from './rpc-liveness';
