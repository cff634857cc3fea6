/**
 * Typed environment parsing. Each app declares its config once; `parseConfig` reads every
 * variable, collects every problem, and fails fast with one readable message listing them all.
 */
export type EnvSource = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Reader<T> = (env: EnvSource, problems: string[]) => T;

export const env = {
  str(name: string, fallback?: string): Reader<string> {
    return (src, problems) => {
      const v = src[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      problems.push(`${name} is required`);
      return '';
    };
  },
  optionalStr(name: string): Reader<string | undefined> {
    return (src) => (src[name] === undefined || src[name] === '' ? undefined : src[name]);
  },
  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): Reader<number> {
    return (src, problems) => {
      const raw = src[name];
      if (raw === undefined || raw === '') return fallback;
      const n = Number(raw);
      if (!Number.isInteger(n)) {
        problems.push(`${name} must be an integer (got "${raw}")`);
        return fallback;
      }
      if (range.min !== undefined && n < range.min) problems.push(`${name} must be at least ${range.min} (got ${n})`);
      if (range.max !== undefined && n > range.max) problems.push(`${name} must be at most ${range.max} (got ${n})`);
      return n;
    };
  },
  bool(name: string, fallback: boolean): Reader<boolean> {
    return (src, problems) => {
      const raw = src[name];
      if (raw === undefined || raw === '') return fallback;
      if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
      if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
      problems.push(`${name} must be true or false (got "${raw}")`);
      return fallback;
    };
  },
  url(name: string, fallback: string | undefined, protocols: string[]): Reader<string> {
    return (src, problems) => {
      const raw = src[name] === undefined || src[name] === '' ? fallback : src[name];
      if (raw === undefined) {
        problems.push(`${name} is required`);
        return '';
      }
      try {
        const u = new URL(raw);
        if (!protocols.includes(u.protocol.replace(/:$/, ''))) problems.push(`${name} must use ${protocols.join(' or ')} (got "${u.protocol}")`);
      } catch {
        problems.push(`${name} must be a URL (got "${raw}")`);
      }
      return raw;
    };
  },
  optionalUrl(name: string, protocols: string[]): Reader<string | undefined> {
    return (src, problems) => {
      const raw = src[name];
      if (raw === undefined || raw === '') return undefined;
      return env.url(name, undefined, protocols)(src, problems);
    };
  },
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): Reader<T> {
    return (src, problems) => {
      const raw = src[name];
      if (raw === undefined || raw === '') return fallback;
      if ((values as readonly string[]).includes(raw)) return raw as T;
      problems.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
      return fallback;
    };
  },
  /** One of `values`, or undefined when unset or empty (the caller decides what unset means). */
  optionalOneOf<T extends string>(name: string, values: readonly T[]): Reader<T | undefined> {
    return (src, problems) => {
      const raw = src[name];
      if (raw === undefined || raw === '') return undefined;
      if ((values as readonly string[]).includes(raw)) return raw as T;
      problems.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
      return undefined;
    };
  },
  json<T>(name: string, fallback: T): Reader<T> {
    return (src, problems) => {
      const raw = src[name];
      if (raw === undefined || raw === '') return fallback;
      try {
        return JSON.parse(raw) as T;
      } catch {
        problems.push(`${name} must be JSON`);
        return fallback;
      }
    };
  },
};

export type ConfigShape = Record<string, Reader<unknown>>;
export type ConfigOf<S extends ConfigShape> = { readonly [K in keyof S]: S[K] extends Reader<infer T> ? T : never };

export function parseConfig<S extends ConfigShape>(shape: S, source: EnvSource = process.env): ConfigOf<S> {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, read] of Object.entries(shape)) out[key] = read(source, problems);
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(out) as ConfigOf<S>;
}
