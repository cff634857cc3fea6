import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { DestinationStream, Logger, LoggerOptions } from 'pino';
import { defaultAppLogFormat, logFormatFromEnv } from './log-format';
import { createPrettifier } from './pretty';
import { redactQueryError } from './query-parameters';

/** Paths never written to logs: tokens, secrets, the Authorization header. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  'secret',
  'password',
  '*.token',
  '*.secret',
  '*.password',
  '*.authorization',
  '*.signing_secret',
  '*.token_hash',
];

interface LogContext {
  requestId?: string;
  tenantId?: string;
}

/** Carries the request id through async work so every log line of a request names it. */
export const logContext = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return logContext.run(ctx, fn);
}

/** pino's error serializer, except that an error carrying a query's parameters loses them. */
function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  return redactQueryError(pino.stdSerializers.err(err) as unknown as Record<string, unknown>, err);
}

export interface CreateLoggerOptions {
  level?: string;
  /** Readable lines (true) or JSON (false); by default LOG_FORMAT decides (see logFormatFromEnv, defaultAppLogFormat). */
  pretty?: boolean;
  /** Where JSON lines go (default stdout); a CLI whose stdout is its result logs to stderr (pino.destination(2)). */
  destination?: DestinationStream;
}

export function createLogger(service: string, opts: CreateLoggerOptions = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? process.env['LOG_LEVEL'] ?? 'info',
    base: { service, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const ctx = logContext.getStore();
      return ctx ? { request_id: ctx.requestId, tenant_id: ctx.tenantId } : {};
    },
  };
  if (opts.destination) return pino(options, opts.destination);
  const fallback = defaultAppLogFormat(Boolean(process.stdout.isTTY), process.env['NODE_ENV']);
  const format = opts.pretty === undefined ? logFormatFromEnv(process.env, fallback) : opts.pretty ? 'pretty' : 'json';
  // pino-pretty in this thread, writing to stdout as pino would: no transport (a worker thread
  // for every logger of the app, whose lines reached the terminal out of order).
  const prettify = format === 'pretty' ? createPrettifier() : null;
  if (prettify) return pino(options, { write: (line: string) => void process.stdout.write(prettify(line.endsWith('\n') ? line.slice(0, -1) : line)) });
  return pino(options); // JSON; also when pino-pretty (a dev dependency) is not installed
}
