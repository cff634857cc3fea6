import { signWebhook, verifyWebhook } from '@sa/webhooks';
import { describeStatus, webhookRequest } from './webhook-request';

describe('webhookRequest', () => {
  const input = {
    deliveryId: '5f0c1d2e-0000-4000-8000-000000000001',
    eventId: '5f0c1d2e-0000-4000-8000-000000000002',
    eventType: 'lead.created',
    dataJson: '{"lead_id":"x","score":87,"band":"hot"}',
    secret: 'whsec_test',
    timestamp: 1700000000,
    userAgent: 'UA/1',
  };

  it('sends {event, timestamp, data} with the data exactly as stored, signed over the raw body', () => {
    const { body, headers } = webhookRequest(input);
    expect(body).toBe('{"event":"lead.created","timestamp":1700000000,"data":{"lead_id":"x","score":87,"band":"hot"}}');
    expect(JSON.parse(body)).toEqual({ event: 'lead.created', timestamp: 1700000000, data: { lead_id: 'x', score: 87, band: 'hot' } });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'UA/1',
      'X-Service-Event': 'lead.created',
      'X-Service-Timestamp': '1700000000',
      'X-Service-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
      'X-Service-Delivery-Id': input.deliveryId,
      'X-Service-Event-Id': input.eventId,
    });
    expect(verifyWebhook({ rawBody: body, headers, secret: 'whsec_test', now: 1700000100 })).toEqual(expect.objectContaining({ ok: true }));
    expect(verifyWebhook({ rawBody: body, headers, secret: 'whsec_other', now: 1700000100 })).toEqual(expect.objectContaining({ ok: false, reason: 'signature_mismatch' }));
  });

  it('signs with the scheme of the issue vector (test_secret, 1700000000, {"event":"lead.created"})', () => {
    expect(signWebhook('test_secret', 1700000000, '{"event":"lead.created"}')).toBe('88ba7f0b62d60c2b1446a7a84cd81f050c80a685c22f19e86cf4baffbc287dab');
    const { body, headers } = webhookRequest({ ...input, secret: 'test_secret' });
    expect(headers['X-Service-Signature']).toBe(signWebhook('test_secret', 1700000000, body));
  });
});

describe('describeStatus', () => {
  it.each([
    [200, true],
    [202, true],
    [204, true],
    [299, true],
    [301, false],
    [302, false],
    [307, false],
    [400, false],
    [410, false],
    [500, false],
    [503, false],
  ])('%i → ok %s', (status, ok) => {
    const verdict = describeStatus(status);
    expect(verdict.ok).toBe(ok);
    expect(verdict.error === null).toBe(ok);
    if (status >= 300 && status < 400) expect(verdict.error).toMatch(/redirects are not followed/);
  });
});
