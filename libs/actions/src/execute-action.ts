import { STATUS_CODES } from 'node:http';
import { GuardError, OutboundPolicy, Resolver, guardedFetch, type GuardedResponse } from '@sa/net-guard';
import { ActionInputError } from './action-input-error';
import { ActionRequest, ActionRequestSpec, buildActionRequest } from './action-request';

/** The whole call (connection, headers and body) is cut after this long, by default. */
export const ACTION_TIMEOUT_MS = 10_000;
/** Largest response body read, by default (after decompression). */
export const ACTION_MAX_RESPONSE_BYTES = 256 * 1024;
/** Longest result handed on (to the model, to the person testing), by default. */
export const ACTION_MAX_RESULT_CHARS = 4000;

export type ActionCallError = 'invalid_input' | 'blocked' | 'redirect' | 'timeout' | 'too_large' | 'network' | 'http_error';

export interface ActionCallResult {
  /** A 2xx response, read within the limits. */
  ok: boolean;
  /** The HTTP status; null when no response came. */
  status: number | null;
  duration_ms: number;
  /** The response body as text, as the server sent it, cut to maxResultChars ("…" appended when cut). */
  result: string;
  truncated: boolean;
  error: ActionCallError | null;
  /** For people: "200 OK in 35 ms", "The endpoint took longer than 10 s" … Never a header value. */
  message: string;
}

export interface ExecuteActionOptions {
  policy: OutboundPolicy;
  /** Default ACTION_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Default ACTION_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /** Default ACTION_MAX_RESULT_CHARS. */
  maxResultChars?: number;
  /** Cancels the call (error 'network'). */
  signal?: AbortSignal;
  /** DNS for host names (tests). */
  resolver?: Resolver;
  /** Allow http: URLs (default false: https only). For tests against a local server, with a policy that allows it. */
  allowHttp?: boolean;
}

/** Headers whose values are not secrets, and may legitimately appear in a response. */
const PLAIN_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);
/** Shorter header values are not searched for in the response (they would match ordinary text). */
const MIN_SECRET_LENGTH = 4;
const REDACTED = '[redacted]';
/** Response types shown as text; anything else is described, not shown. */
const TEXTUAL = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|csv|graphql-response\+json|problem\+json|problem\+xml)\b)/i;

/** The header values of the spec that must not come back, longest first. */
function secretsOf(spec: ActionRequestSpec): string[] {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    if (typeof value !== 'string' || PLAIN_HEADERS.has(name.toLowerCase())) continue;
    const trimmed = value.trim();
    if (trimmed.length >= MIN_SECRET_LENGTH) secrets.add(trimmed);
    // "Bearer abc…", "Basic abc…", "Token abc…": the credential alone may be echoed too.
    const credential = /^\S+\s+(\S.*)$/s.exec(trimmed)?.[1]?.trim();
    if (credential && credential.length >= MIN_SECRET_LENGTH) secrets.add(credential);
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join(REDACTED) : out), text);
}

function formatDuration(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The body as text in its declared charset (UTF-8 otherwise), or a description when it is not text. */
function bodyText(res: GuardedResponse): string {
  const type = (res.headers['content-type'] ?? '').trim();
  if (res.body.length === 0) return '';
  if (type !== '' && !TEXTUAL.test(type)) return `(${res.body.length} bytes of ${type.split(';')[0].trim().slice(0, 80)}, not shown)`;
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(type)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(res.body);
  } catch {
    return new TextDecoder('utf-8').decode(res.body);
  }
}

function cut(text: string, max: number): { result: string; truncated: boolean } {
  if (text.length <= max) return { result: text, truncated: false };
  let kept = text.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1); // never half a surrogate pair
  return { result: `${kept}…`, truncated: true };
}

/**
 * Calls an action once: builds the request from the spec and the input, sends it through the
 * outbound guard (DNS checked at connect time, private addresses refused per the policy), never
 * follows redirects, and cuts the whole call at timeoutMs. Expected failures come back as a result
 * with an error code and a message for people; nothing is thrown for them, and nothing is logged.
 * No header value of the spec appears in what is returned, even when the server echoes it.
 */
export async function executeAction(spec: ActionRequestSpec, input: unknown, opts: ExecuteActionOptions): Promise<ActionCallResult> {
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? ACTION_TIMEOUT_MS;
  const maxResponseBytes = opts.maxResponseBytes ?? ACTION_MAX_RESPONSE_BYTES;
  const maxResultChars = opts.maxResultChars ?? ACTION_MAX_RESULT_CHARS;
  const secrets = secretsOf(spec);
  const elapsed = (): number => Math.round(performance.now() - started);
  const failed = (error: ActionCallError, message: string, status: number | null = null): ActionCallResult => ({
    ok: false,
    status,
    duration_ms: elapsed(),
    result: '',
    truncated: false,
    error,
    message: redact(message, secrets),
  });

  let request: ActionRequest;
  try {
    request = buildActionRequest(spec, input);
  } catch (err) {
    if (err instanceof ActionInputError) return failed('invalid_input', err.message);
    throw err;
  }
  const protocol = new URL(request.url).protocol;
  if (protocol !== 'https:' && !(protocol === 'http:' && opts.allowHttp === true)) {
    return failed('blocked', 'Blocked by the outbound policy: only https URLs are allowed');
  }

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCancel = (): void => controller.abort();
  if (opts.signal?.aborted) onCancel();
  opts.signal?.addEventListener('abort', onCancel, { once: true });

  let response: GuardedResponse;
  try {
    response = await guardedFetch(request.url, { ...opts.policy, timeoutMs, maxBytes: maxResponseBytes, maxRedirects: 0 }, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      followRedirects: false,
      signal: controller.signal,
      resolver: opts.resolver,
    });
  } catch (err) {
    const tookTooLong = `The endpoint took longer than ${formatDuration(timeoutMs)}`;
    if (timedOut) return failed('timeout', tookTooLong);
    if (opts.signal?.aborted) return failed('network', 'The call was cancelled');
    // Not expected from the guard; its message could say anything, so none of it is passed on.
    if (!(err instanceof GuardError)) return failed('network', 'The request could not be sent');
    switch (err.code) {
      case 'timeout':
        return failed('timeout', tookTooLong);
      case 'blocked':
        return failed('blocked', `Blocked by the outbound policy: ${err.message}`);
      case 'too_large':
        return failed('too_large', `The response is larger than ${formatBytes(maxResponseBytes)}`);
      case 'too_many_redirects':
        return failed('redirect', 'Redirects are not followed');
      case 'bad_url':
        return failed('invalid_input', 'The URL is not valid');
      case 'network':
        return failed('network', `Could not reach the endpoint: ${err.message}`);
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCancel);
  }

  const { status } = response;
  const { result, truncated } = cut(redact(bodyText(response), secrets), maxResultChars);
  const base = { status, duration_ms: elapsed(), result, truncated };
  if (status >= 300 && status < 400) {
    return { ...base, ok: false, error: 'redirect', message: `Redirects are not followed (${status} to another address)` };
  }
  const summary = `${status} ${STATUS_CODES[status] ?? ''}`.trim();
  if (status >= 200 && status < 300) return { ...base, ok: true, error: null, message: `${summary} in ${base.duration_ms} ms` };
  return { ...base, ok: false, error: 'http_error', message: `${summary} in ${base.duration_ms} ms` };
}
