import { createLogger } from './logger';

describe('createLogger and LOG_FORMAT (an app run on its own)', () => {
  const saved = { LOG_FORMAT: process.env['LOG_FORMAT'], LOG_PRETTY: process.env['LOG_PRETTY'] };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    jest.restoreAllMocks();
  });

  it('LOG_FORMAT=pretty: readable lines written to stdout in this thread, at once (no transport)', () => {
    process.env['LOG_FORMAT'] = 'pretty';
    const written: string[] = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const logger = createLogger('bots', { level: 'info' });
    logger.warn({ bot_id: 'b1' }, 'slow answer');
    expect(written).toHaveLength(1);
    expect(written[0].replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: \[bots\] slow answer \{"bot_id":"b1"\}\n$/);
  });

  it('an unknown LOG_FORMAT stops the app with a message that names it', () => {
    process.env['LOG_FORMAT'] = 'text';
    expect(() => createLogger('bots')).toThrow('LOG_FORMAT must be one of json, pretty (got "text")');
  });
});
