import { performance } from 'node:perf_hooks';
import { Logger as NestLogger } from '@nestjs/common';
import { MessagePattern, RpcException } from '@nestjs/microservices';
import { Observable, catchError, finalize, isObservable, tap, throwError } from 'rxjs';
import { CallerContext, RpcRequest, RpcResponse, RpcSubject } from '@sa/contracts';
import { DomainError } from '@sa/errors';
import { withLogContext } from '@sa/logging';
import { counter, histogram } from '@sa/metrics';
import { validateEnvelope } from './validate-envelope';

const log = new NestLogger('RpcHandler');

const handled = counter({ name: 'sa_rpc_handled_total', help: 'NATS requests handled, by subject and outcome (ok or the error code)', labelNames: ['subject', 'outcome'] as const });
const handleDuration = histogram({ name: 'sa_rpc_handle_duration_seconds', help: 'Time to handle a NATS request, by subject', labelNames: ['subject'] as const });

/** The histogram child of one subject, made once (the label set never changes). */
const durations = new Map<string, { observe(seconds: number): void }>();

/** Records one handled request when it settles. */
function meter(subject: string): (err?: unknown) => void {
  let duration = durations.get(subject);
  if (!duration) durations.set(subject, (duration = handleDuration.labels({ subject })));
  const started = performance.now();
  let done = false;
  return (err?: unknown) => {
    if (done) return;
    done = true;
    duration.observe((performance.now() - started) / 1000);
    handled.inc({ subject, outcome: err === undefined ? 'ok' : err instanceof DomainError ? err.code : 'internal_error' });
  };
}

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
        const settle = meter(subject);
        let result: unknown;
        try {
          const { data, ctx } = validateEnvelope(subject, payload);
          result = original.call(this, data as RpcRequest<S>, ctx as CallerContext);
        } catch (err) {
          settle(err);
          throw toRpcException(err, subject, requestId);
        }
        if (isObservable(result)) {
          let failure: unknown;
          return result.pipe(
            tap({ error: (err: unknown) => (failure = err) }),
            finalize(() => settle(failure)),
            catchError((err) => throwError(() => toRpcException(err, subject, requestId))),
          );
        }
        if (result instanceof Promise) {
          return result.then(
            (value) => {
              settle();
              return value;
            },
            (err) => {
              settle(err);
              throw toRpcException(err, subject, requestId);
            },
          );
        }
        settle();
        return result;
      });
    };
    Object.defineProperty(wrapped, 'name', { value: original.name });
    descriptor.value = wrapped as unknown as H;
    MessagePattern(subject)(target, key, descriptor);
  };
}
