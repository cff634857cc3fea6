import { DynamicModule, Global, Module } from '@nestjs/common';
import { connect } from 'nats';
import { ServiceName } from '@sa/contracts';
import { healthControllerFor } from './health.controller';
import { NATS_CONNECTION, RPC_LIVENESS, RPC_TIMEOUT_MS, RpcClient } from './rpc-client';
import { DEFAULT_RPC_LIVENESS, RpcLiveness } from './rpc-liveness';

export interface MessagingOptions {
  natsUrl: string;
  rpcTimeoutMs: number;
  /** Signs of life asked of the replica working on a request (RPC_LIVENESS_MS, RPC_LOST_AFTER_MS); defaults 1 s and 3.5 s. */
  rpcLiveness?: RpcLiveness;
  /** The service this process is; it then answers `<service>.health.ping`. Omit for the gateway. */
  service?: ServiceName;
  /** Name of the NATS connection, shown in NATS monitoring. */
  connectionName: string;
}

/** NATS request/reply for one process: the typed RpcClient, and the health ping of its service. */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(opts: MessagingOptions): DynamicModule {
    return {
      module: MessagingModule,
      controllers: opts.service ? [healthControllerFor(opts.service)] : [],
      providers: [
        {
          provide: NATS_CONNECTION,
          useFactory: () =>
            connect({
              servers: [opts.natsUrl],
              name: `${opts.connectionName}-client`,
              maxReconnectAttempts: -1,
              reconnectTimeWait: 500,
              waitOnFirstConnect: true,
              noAsyncTraces: true,
            }),
        },
        { provide: RPC_TIMEOUT_MS, useValue: opts.rpcTimeoutMs },
        { provide: RPC_LIVENESS, useValue: opts.rpcLiveness ?? DEFAULT_RPC_LIVENESS },
        RpcClient,
      ],
      exports: [RpcClient, NATS_CONNECTION],
    };
  }
}
