import vectors from './testdata/webhook-vectors.json';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, assertWebhook, signWebhook, verifyWebhook } from './signature';

const [first] = vectors.vectors;
const headersFor = (timestamp: string, signature: string) => ({ 'X-Service-Timestamp': timestamp, 'X-Service-Signature': signature, 'X-Service-Event': 'lead.created' });

describe('signWebhook', () => {
  it.each(vectors.vectors.map((v) => [v.signature, v]))('matches the shared vector %s', (_sig, v) => {
    expect(signWebhook(v.secret, v.timestamp, v.raw_body)).toBe(v.signature);
    expect(signWebhook(v.secret, Number(v.timestamp), Buffer.from(v.raw_body, 'utf8'))).toBe(v.signature);
  });

  it('is the issue’s vector: test_secret, 1700000000, {"event":"lead.created"}', () => {
    expect(signWebhook('test_secret', 1700000000, '{"event":"lead.created"}')).toBe('88ba7f0b62d60c2b1446a7a84cd81f050c80a685c22f19e86cf4baffbc287dab');
  });
});

describe('verifyWebhook', () => {
  const now = Number(first.timestamp) + 10;
  const ok = (extra: Partial<Parameters<typeof verifyWebhook>[0]> = {}) =>
    verifyWebhook({ rawBody: first.raw_body, headers: headersFor(first.timestamp, first.signature), secret: first.secret, now, ...extra });

  it.each(vectors.vectors.map((v) => [v.signature, v]))('accepts the shared vector %s', (_sig, v) => {
    const result = verifyWebhook({ rawBody: v.raw_body, headers: headersFor(v.timestamp, v.signature), secret: v.secret, now: Number(v.timestamp) });
    expect(result).toEqual({ ok: true, timestamp: Number(v.timestamp), event: 'lead.created' });
  });

  it('reads headers case-insensitively, from a plain object, an array value or a Headers instance', () => {
    expect(ok().ok).toBe(true);
    expect(verifyWebhook({ rawBody: first.raw_body, headers: { [TIMESTAMP_HEADER]: [first.timestamp], [SIGNATURE_HEADER]: first.signature }, secret: first.secret, now }).ok).toBe(true);
    const h = new Headers({ [TIMESTAMP_HEADER]: first.timestamp, [SIGNATURE_HEADER]: first.signature });
    expect(verifyWebhook({ rawBody: first.raw_body, headers: h, secret: first.secret, now }).ok).toBe(true);
  });

  const rejects: [string, () => ReturnType<typeof verifyWebhook>, string][] = [
    ['missing X-Service-Timestamp', () => verifyWebhook({ rawBody: first.raw_body, headers: { 'X-Service-Signature': first.signature }, secret: first.secret, now }), 'missing_timestamp'],
    ['missing X-Service-Signature', () => verifyWebhook({ rawBody: first.raw_body, headers: { 'X-Service-Timestamp': first.timestamp }, secret: first.secret, now }), 'missing_signature'],
    ['signature of 63 hex characters', () => ok({ headers: headersFor(first.timestamp, 'a'.repeat(63)) }), 'malformed_signature'],
    ['signature with a non-hex character', () => ok({ headers: headersFor(first.timestamp, 'g' + 'a'.repeat(63)) }), 'malformed_signature'],
    ['uppercase hex of the right signature', () => ok({ headers: headersFor(first.timestamp, first.signature.toUpperCase()) }), 'signature_mismatch'],
    ['timestamp not a finite number', () => ok({ headers: headersFor('abc', first.signature) }), 'malformed_timestamp'],
    ['timestamp Infinity', () => ok({ headers: headersFor('Infinity', first.signature) }), 'malformed_timestamp'],
    ['timestamp 301 s in the past', () => ok({ now: Number(first.timestamp) + 301 }), 'timestamp_out_of_tolerance'],
    ['timestamp 301 s in the future', () => ok({ now: Number(first.timestamp) - 301 }), 'timestamp_out_of_tolerance'],
    ['body re-serialised with other spacing', () => ok({ rawBody: '{ "event": "lead.created" }' }), 'signature_mismatch'],
    ['body re-serialised with other key order', () => verifyWebhook({ rawBody: '{"event":"ticket.created","data":{"a":2,"b":1},"timestamp":1767225600}', headers: headersFor(vectors.vectors[3].timestamp, vectors.vectors[3].signature), secret: vectors.vectors[3].secret, now: 1767225600 }), 'signature_mismatch'],
    ['signature computed with another secret', () => ok({ secret: 'whsec_other' }), 'signature_mismatch'],
  ];

  it.each(rejects)('rejects: %s', (_label, run, reason) => {
    const result = run();
    expect(result.ok).toBe(false);
    expect(result).toEqual(expect.objectContaining({ reason, message: expect.any(String) }));
  });

  it('accepts exactly 300 s of skew either way', () => {
    expect(ok({ now: Number(first.timestamp) + 300 }).ok).toBe(true);
    expect(ok({ now: Number(first.timestamp) - 300 }).ok).toBe(true);
    expect(ok({ now: new Date((Number(first.timestamp) + 299) * 1000) }).ok).toBe(true);
  });

  it('assertWebhook throws with the reason', () => {
    expect(() => assertWebhook({ rawBody: first.raw_body, headers: headersFor(first.timestamp, first.signature), secret: 'nope', now })).toThrow(expect.objectContaining({ reason: 'signature_mismatch' }));
    expect(assertWebhook({ rawBody: first.raw_body, headers: headersFor(first.timestamp, first.signature), secret: first.secret, now })).toEqual({ timestamp: 1700000000, event: 'lead.created' });
  });
});
