import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { BadRequest, DomainError, NotFound, toHttpError } from '@sa/errors';

/** Framework-level failures (body parsing, routing) turned into our codes; never a bare 500. */
export function toDomainFromFramework(err: unknown, requestId: string): DomainError {
  if (err instanceof DomainError) return err;
  const status = err instanceof HttpException ? err.getStatus() : Number((err as { statusCode?: number })?.statusCode);
  const fstCode = String((err as { code?: string })?.code ?? '');
  if (status === 404) return new NotFound('Route');
  if (status === 413 || fstCode === 'FST_ERR_CTP_BODY_TOO_LARGE') return new BadRequest('The request body is too large');
  if (status === 415 || fstCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new BadRequest('Content-Type must be application/json');
  if (fstCode === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new BadRequest('The JSON body is empty');
  if (fstCode === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return new BadRequest('Content-Length does not match the body');
  if (status === 400 || (err instanceof SyntaxError)) return new BadRequest(`The request body is not valid JSON${err instanceof Error ? `: ${err.message}` : ''}`);
  if (status >= 400 && status < 500) return new BadRequest(err instanceof Error ? err.message : 'Bad request');
  return new DomainError('internal_error', `Internal error (request id ${requestId})`);
}

/** The code of the error each response carried, for hooks that report refusals (see errorCodeSent). */
const sentCodes = new WeakMap<object, string>();

/** The `code` of the error body this response was answered with, if it was an error of ours. */
export function errorCodeSent(reply: FastifyReply): string | undefined {
  return sentCodes.get(reply.raw);
}

export function sendError(reply: FastifyReply, err: DomainError): void {
  sentCodes.set(reply.raw, err.code);
  const { status, headers, body } = toHttpError(err);
  if (err.code === 'rate_limited') body['retry_after'] = Number(headers['retry-after']);
  void reply.status(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

/**
 * The one place HTTP errors are written: spec part 7 shapes, unknown errors logged as 500. Made
 * with the app's logger: `{ provide: APP_FILTER, inject: [LOGGER], useFactory: (l) => new HttpErrorFilter(l) }`.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    // An edge that also answers NATS (the gateway's identity.*): Nest's own RPC handling replies there.
    if (host.getType() !== 'http') return;
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const err = toDomainFromFramework(exception, String(req.id));
    if (err.code === 'internal_error') {
      this.logger.error({ err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception, request_id: req.id }, 'unhandled error');
    }
    if (reply.sent) return;
    sendError(reply, err);
  }
}
