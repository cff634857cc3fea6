import { createHmac, timingSafeEqual } from 'node:crypto';

export const EVENT_HEADER = 'x-service-event';
export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const SIGNATURE_HEADER = 'x-service-signature';
/** Receivers reject a timestamp further than this from their clock (spec part 6). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Lowercase hex HMAC-SHA256 of `<timestamp>.<rawBody>`, keyed with the signing secret as given. */
export function signWebhook(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return hmac.digest('hex');
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined> | { get(name: string): string | null };

export type VerifyFailure =
  | 'missing_timestamp'
  | 'missing_signature'
  | 'malformed_signature'
  | 'malformed_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch';

export type VerifyResult = { ok: true; timestamp: number; event: string | null } | { ok: false; reason: VerifyFailure; message: string };

export interface VerifyInput {
  /** The exact bytes received: never a re-serialised object (key order and spacing matter). */
  rawBody: string | Uint8Array;
  headers: HeaderBag;
  /** The webhook's signing secret (`whsec_…`). */
  secret: string;
  toleranceSeconds?: number;
  /** The receiver's clock, in Unix seconds, milliseconds-precision Date, or number of seconds. */
  now?: number | Date;
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

const fail = (reason: VerifyFailure, message: string): VerifyResult => ({ ok: false, reason, message });

/**
 * Checks a webhook request by every rule of spec part 6: the timestamp and signature headers must
 * be present, the signature 64 hexadecimal characters, the timestamp a finite number within
 * `toleranceSeconds` (300) of now either way; then the expected signature is compared with the
 * received one in constant time.
 */
export function verifyWebhook(input: VerifyInput): VerifyResult {
  const ts = header(input.headers, TIMESTAMP_HEADER);
  const sig = header(input.headers, SIGNATURE_HEADER);
  if (ts === undefined || ts === '') return fail('missing_timestamp', `the ${TIMESTAMP_HEADER} header is missing`);
  if (sig === undefined || sig === '') return fail('missing_signature', `the ${SIGNATURE_HEADER} header is missing`);
  if (!/^[0-9a-fA-F]{64}$/.test(sig)) return fail('malformed_signature', 'the signature is not 64 hexadecimal characters');
  const timestamp = Number(ts.trim());
  if (ts.trim() === '' || !Number.isFinite(timestamp)) return fail('malformed_timestamp', 'the timestamp is not a finite number');
  const now = input.now === undefined ? Date.now() / 1000 : input.now instanceof Date ? input.now.getTime() / 1000 : input.now;
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) return fail('timestamp_out_of_tolerance', `the timestamp is more than ${tolerance} s from now`);
  const expected = Buffer.from(signWebhook(input.secret, ts.trim(), input.rawBody), 'utf8');
  const received = Buffer.from(sig, 'utf8');
  if (!timingSafeEqual(expected, received)) return fail('signature_mismatch', 'the signature does not match');
  return { ok: true, timestamp, event: header(input.headers, EVENT_HEADER) ?? null };
}

export class WebhookVerificationError extends Error {
  constructor(readonly reason: VerifyFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** verifyWebhook that throws WebhookVerificationError instead of returning a failure. */
export function assertWebhook(input: VerifyInput): { timestamp: number; event: string | null } {
  const result = verifyWebhook(input);
  if (!result.ok) throw new WebhookVerificationError(result.reason, result.message);
  return { timestamp: result.timestamp, event: result.event };
}
