import { Logger as NestLogger } from '@nestjs/common';
import { MessagePattern, RpcException } from '@nestjs/microservices';
import { Observable, catchError, isObservable, throwError } from 'rxjs';
import { CallerContext, RpcRequest, RpcResponse, RpcSubject } from '@sa/contracts';
import { DomainError } from '@sa/errors';
import { withLogContext } from '@sa/logging';
import { validateEnvelope } from './validate-envelope';

const log = new NestLogger('RpcHandler');

function toRpcException(err: unknown, subject: string, requestId: string | undefined): RpcException {
  if (err instanceof DomainError) return new RpcException(err.toPayload());
  log.error(`Unhandled error in ${subject} (request ${requestId ?? '-'}): ${err instanceof Error ? err.stack : String(err)}`);
  return new RpcException({ code: 'internal_error', message: `Internal error (request id ${requestId ?? 'unknown'})` });
}

type HandlerResult<S extends RpcSubject> = RpcResponse<S> | Promise<RpcResponse<S>> | Observable<unknown>;
type Handler<S extends RpcSubject> = (data: RpcRequest<S>, ctx: CallerContext) => HandlerResult<S>;

/**
 * Marks a method as the handler of one NATS subject. The method receives the validated request
 * and the validated caller context (never the raw message); domain errors become
 * `{code, message, details}` replies, anything else an `internal_error` that is logged.
 */
export function RpcHandler<S extends RpcSubject>(subject: S) {
  return <H extends Handler<S>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<H>): void => {
    const original = descriptor.value!;
    const wrapped = function (this: unknown, payload: unknown): unknown {
      const requestId = (payload as { ctx?: { requestId?: string } } | undefined)?.ctx?.requestId;
      const tenantId = (payload as { ctx?: { tenantId?: string } } | undefined)?.ctx?.tenantId;
      return withLogContext({ requestId, tenantId }, () => {
        let result: unknown;
        try {
          const { data, ctx } = validateEnvelope(subject, payload);
          result = original.call(this, data as RpcRequest<S>, ctx as CallerContext);
        } catch (err) {
          throw toRpcException(err, subject, requestId);
        }
        if (isObservable(result)) return result.pipe(catchError((err) => throwError(() => toRpcException(err, subject, requestId))));
        if (result instanceof Promise) return result.catch((err) => { throw toRpcException(err, subject, requestId); });
        return result;
      });
    };
    Object.defineProperty(wrapped, 'name', { value: original.name });
    descriptor.value = wrapped as unknown as H;
    MessagePattern(subject)(target, key, descriptor);
  };
}
