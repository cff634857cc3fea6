import 'reflect-metadata';
import { nanos } from 'nats';
import { desiredStreamConfig, jsErrorCode, streamConfigUpdate } from './event-stream';

describe('desiredStreamConfig', () => {
  it('captures the prefix, keeps events 7 days on file and dedupes ids for 2 minutes', () => {
    expect(desiredStreamConfig({ name: 'SA_EVENTS', subjectPrefix: 'events' })).toEqual({
      name: 'SA_EVENTS',
      subjects: ['events.>'],
      storage: 'file',
      retention: 'limits',
      max_age: nanos(7 * 24 * 3600 * 1000),
      duplicate_window: nanos(120_000),
    });
  });
});

describe('streamConfigUpdate', () => {
  const desired = desiredStreamConfig({ name: 'S', subjectPrefix: 'p' });

  it('is null when the stream already matches', () => {
    expect(streamConfigUpdate({ ...desired }, desired)).toBeNull();
  });

  it.each([
    ['subjects', { subjects: ['other.>'] }],
    ['an extra subject', { subjects: ['p.>', 'q.>'] }],
    ['max_age', { max_age: nanos(1000) }],
    ['duplicate_window', { duplicate_window: 0 }],
  ])('updates a different %s', (_, change) => {
    expect(streamConfigUpdate({ ...desired, ...change }, desired)).toEqual({
      subjects: ['p.>'],
      max_age: desired.max_age,
      duplicate_window: desired.duplicate_window,
    });
  });
});

describe('jsErrorCode', () => {
  it('reads the JetStream API error code', () => {
    expect(jsErrorCode({ api_error: { code: 404, err_code: 10059, description: 'stream not found' } })).toBe(10059);
    expect(jsErrorCode(new Error('x'))).toBeUndefined();
    expect(jsErrorCode(undefined)).toBeUndefined();
  });
});
