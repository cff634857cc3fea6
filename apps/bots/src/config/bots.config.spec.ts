import { randomBytes } from 'node:crypto';
import { loadBotsConfig } from './bots.config';

describe('loadBotsConfig: the key that seals widget identity secrets', () => {
  it('reads WEBHOOK_SECRET_KEY, never showing it when serialised', () => {
    const hex = randomBytes(32).toString('hex');
    const config = loadBotsConfig({ WEBHOOK_SECRET_KEY: hex });
    expect(config.secretKey.key.toString('hex')).toBe(hex);
    expect(JSON.stringify(config)).not.toContain(hex);
  });

  it('refuses NODE_ENV=production without a key, and a malformed key', () => {
    expect(() => loadBotsConfig({ NODE_ENV: 'production' })).toThrow(/WEBHOOK_SECRET_KEY is required when NODE_ENV=production/);
    expect(() => loadBotsConfig({ WEBHOOK_SECRET_KEY: 'correct-horse' })).toThrow(/WEBHOOK_SECRET_KEY must be 32 bytes/);
  });
});
