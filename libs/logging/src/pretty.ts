import type { PrettyOptions } from 'pino-pretty';

/**
 * What a person reads, one line an event: the local time, the level (ERROR in red, WARN in
 * yellow), `[app] message`, then the event's other fields on the same line; an error's stack
 * follows below it. pid and hostname are left out; the app's name (`service`) leads the message.
 */
export const PRETTY_OPTIONS: PrettyOptions = {
  translateTime: 'SYS:HH:MM:ss.l',
  messageFormat: '{if service}[{service}] {end}{msg}',
  ignore: 'pid,hostname,service',
  singleLine: true,
};

/** One line of output (without its newline) to what is written (with its newline). */
export type Prettifier = (line: string) => string;

/**
 * pino-pretty's formatter (prettyFactory) over lines: a pino JSON line becomes one readable line,
 * any other line (a stack trace an app wrote to stderr) passes through unchanged. Colours when
 * pino-pretty finds the terminal supports them (NO_COLOR and FORCE_COLOR are honoured), unless
 * `colorize` says otherwise. Null when pino-pretty is not installed: it is a dev dependency, and
 * production images log JSON.
 */
export function createPrettifier(options: { colorize?: boolean } = {}): Prettifier | null {
  let pinoPretty: typeof import('pino-pretty');
  try {
    pinoPretty = require('pino-pretty') as typeof import('pino-pretty');
  } catch {
    return null;
  }
  const pretty = pinoPretty.prettyFactory({ ...PRETTY_OPTIONS, ...options });
  return (line) => (line.startsWith('{"level":') ? pretty(line) || `${line}\n` : `${line}\n`);
}
