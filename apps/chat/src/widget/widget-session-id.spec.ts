import 'reflect-metadata';
import { SESSION_ID_MAX } from '@sa/contracts';
import { newWidgetSessionId } from './widget-session-id';

describe('newWidgetSessionId', () => {
  it('is 32 random bytes as base64url: 43 URL- and header-safe characters, within the session id limit', () => {
    const id = newWidgetSessionId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(id, 'base64url')).toHaveLength(32);
    expect(id.length).toBeLessThanOrEqual(SESSION_ID_MAX);
  });

  it('never repeats', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newWidgetSessionId()));
    expect(ids.size).toBe(10_000);
  });
});
