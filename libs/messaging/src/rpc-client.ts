import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { TimeoutError, firstValueFrom, timeout } from 'rxjs';
import { CallerContext, Envelope, RpcRequest, RpcResponse, RpcSubject } from '@sa/contracts';
import { DomainError, ServiceUnavailable } from '@sa/errors';

export const NATS_CLIENT = Symbol('NATS_CLIENT');
export const RPC_TIMEOUT_MS = Symbol('RPC_TIMEOUT_MS');

function serviceOf(subject: string): string {
  return subject.split('.')[0];
}

/** Converts whatever a NATS request failed with into a DomainError. */
export function toDomainError(err: unknown, subject: string): DomainError {
  if (err instanceof DomainError) return err;
  const fromPayload = DomainError.fromPayload(err);
  if (fromPayload) return fromPayload;
  if (err instanceof TimeoutError) return new ServiceUnavailable(serviceOf(subject), 'no reply in time');
  const code = (err as { code?: unknown })?.code;
  const message = String((err as { message?: unknown })?.message ?? err);
  // nats.js says 'no responders'; Nest's NATS client wraps it as EmptyResponseException.
  if (code === '503' || code === 503 || /no responders|no subscribers listening/i.test(message)) return new ServiceUnavailable(serviceOf(subject), 'no instance is running');
  if (/disconnect|closed|connection/i.test(message)) return new ServiceUnavailable(serviceOf(subject), 'messaging is unavailable');
  return new DomainError('internal_error', `Unexpected reply from the ${serviceOf(subject)} service`);
}

/**
 * The only way to call another service: typed by the contract map, bounded by a timeout, and
 * failing with a DomainError (the remote error, or service_unavailable) instead of hanging.
 */
@Injectable()
export class RpcClient implements OnApplicationShutdown {
  constructor(
    @Inject(NATS_CLIENT) private readonly client: ClientProxy,
    @Inject(RPC_TIMEOUT_MS) private readonly defaultTimeoutMs: number,
  ) {}

  async send<S extends RpcSubject>(subject: S, data: RpcRequest<S>, ctx?: CallerContext, opts: { timeoutMs?: number } = {}): Promise<RpcResponse<S>> {
    const envelope: Envelope<RpcRequest<S>> = { ctx, data };
    try {
      return (await firstValueFrom(this.client.send(subject, envelope).pipe(timeout(opts.timeoutMs ?? this.defaultTimeoutMs)))) as RpcResponse<S>;
    } catch (err) {
      throw toDomainError(err, subject);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
