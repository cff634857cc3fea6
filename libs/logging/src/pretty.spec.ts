import { Writable } from 'node:stream';
import pino from 'pino';
import { createPrettifier } from './pretty';

const ANSI = /\x1b\[[0-9;]*m/g;

/** The JSON lines a logger of the apps writes (createLogger's shape: ISO time, service, pid). */
function jsonLines(log: (logger: pino.Logger) => void): string[] {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _enc, cb) => (lines.push(...chunk.toString().split('\n').filter(Boolean)), cb()) });
  const logger = pino({ base: { service: 'gateway', pid: 4242 }, timestamp: pino.stdTimeFunctions.isoTime }, sink);
  log(logger);
  logger.flush();
  return lines;
}

describe('createPrettifier', () => {
  const prettify = createPrettifier({ colorize: false })!;

  it('turns a pino JSON line into one line: time, level, [app] message, the other fields; no pid', () => {
    const [line] = jsonLines((l) => l.info({ url: 'http://127.0.0.1:3000/v1' }, 'gateway listening'));
    expect(line.startsWith('{"level":30')).toBe(true);
    const out = prettify(line);
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[gateway\] gateway listening \{"url":"http:\/\/127\.0\.0\.1:3000\/v1"\}\n$/);
    expect(out).not.toContain('4242');
    expect(out.split('\n')).toHaveLength(2);
  });

  it('writes an error as ERROR with its stack below the line', () => {
    const [line] = jsonLines((l) => l.error({ err: new Error('connection lost') }, 'publish failed'));
    const out = prettify(line);
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: \[gateway\] publish failed/);
    expect(out).toContain('Error: connection lost');
    expect(out).toMatch(/\n\s+at /);
  });

  it('passes any other line through unchanged (stack traces an app writes to stderr, plain text, other JSON)', () => {
    for (const line of ['gateway failed to start: Error: listen EADDRINUSE', '    at Server.listen (node:net:1:1)', '', '{"not":"a log line"}']) {
      expect(prettify(line)).toBe(`${line}\n`);
    }
  });

  it('colours the level when asked (ERROR stands out)', () => {
    const colour = createPrettifier({ colorize: true })!;
    const [line] = jsonLines((l) => l.error('failed'));
    const out = colour(line);
    expect(out).toMatch(ANSI);
    expect(out).toContain('\x1b[31mERROR');
    expect(out.replace(ANSI, '')).toMatch(/ERROR: \[gateway\] failed\n$/);
  });
});
