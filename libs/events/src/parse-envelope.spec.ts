import { parseEnvelope } from './parse-envelope';

const valid = {
  id: '0b8e5c1e-7c1a-4a53-9d0c-2f6f3f0c9a11',
  type: 'bot.created',
  tenant_id: '6a1f2d3c-4b5e-4f60-8a7b-9c0d1e2f3a4b',
  occurred_at: '2026-01-02T03:04:05.678Z',
  data: { bot_id: 'x' },
};

describe('parseEnvelope', () => {
  it('returns the envelope of a valid message, from bytes or text', () => {
    expect(parseEnvelope(new TextEncoder().encode(JSON.stringify(valid)))).toEqual(valid);
    expect(parseEnvelope(JSON.stringify(valid))).toEqual(valid);
  });

  it.each([
    ['not JSON', '{nope'],
    ['not an object', '[1,2]'],
    ['null', 'null'],
    ['id not a uuid', JSON.stringify({ ...valid, id: '42' })],
    ['no type', JSON.stringify({ ...valid, type: '' })],
    ['tenant not a uuid', JSON.stringify({ ...valid, tenant_id: 7 })],
    ['bad date', JSON.stringify({ ...valid, occurred_at: 'yesterday' })],
    ['no data', JSON.stringify({ ...valid, data: undefined })],
    ['data not an object', JSON.stringify({ ...valid, data: 'x' })],
  ])('rejects %s', (_, payload) => {
    expect(parseEnvelope(payload)).toBeNull();
  });

  it('rejects invalid UTF-8', () => {
    expect(parseEnvelope(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toBeNull();
  });
});
