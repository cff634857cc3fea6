/**
 * How logs are written: `json` (one pino JSON object a line: containers, CI, log collectors) or
 * `pretty` (one readable line an event, for a person at a terminal, by pino-pretty).
 */
export type LogFormat = 'json' | 'pretty';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/**
 * The format LOG_FORMAT (json|pretty) asks for; when it is unset or empty, the older LOG_PRETTY
 * (true|false, read for compatibility); when neither is set, `fallback`. Throws on a value it
 * does not know, with a one-line message that names the variable.
 */
export function logFormatFromEnv(env: Record<string, string | undefined>, fallback: LogFormat): LogFormat {
  const format = env['LOG_FORMAT'];
  if (format !== undefined && format !== '') {
    if ((LOG_FORMATS as readonly string[]).includes(format)) return format as LogFormat;
    throw new Error(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (got "${format}")`);
  }
  const pretty = env['LOG_PRETTY'];
  if (pretty !== undefined && pretty !== '') {
    if (['1', 'true', 'yes', 'on'].includes(pretty.toLowerCase())) return 'pretty';
    if (['0', 'false', 'no', 'off'].includes(pretty.toLowerCase())) return 'json';
    throw new Error(`LOG_PRETTY must be true or false (got "${pretty}"); LOG_FORMAT=json|pretty replaces it`);
  }
  return fallback;
}

/**
 * The format of an app run on its own (`node dist/apps/<app>/src/main.js`) when nothing is set:
 * pretty when its standard output is a terminal and NODE_ENV is not production, JSON otherwise
 * (containers, CI, an app whose output the launcher reads).
 */
export function defaultAppLogFormat(stdoutIsTerminal: boolean, nodeEnv: string | undefined): LogFormat {
  return stdoutIsTerminal && nodeEnv !== 'production' ? 'pretty' : 'json';
}
