/** What replaces a query parameter's value wherever it would be logged. */
export const REDACTED = '[redacted]';

/** The string values among a query's parameters (nested arrays included), longest first. */
function parameterStrings(parameters: unknown): string[] {
  const out: string[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v) && depth < 4) v.forEach((x) => visit(x, depth + 1));
    else if (v !== null && typeof v === 'object' && !(v instanceof Date) && !Buffer.isBuffer(v)) {
      if (depth < 4) Object.values(v).forEach((x) => visit(x, depth + 1));
      try {
        out.push(JSON.stringify(v));
      } catch {
        // circular: its string members were visited above
      }
    }
  };
  if (Array.isArray(parameters)) parameters.forEach((p) => visit(p, 0));
  else if (parameters && typeof parameters === 'object') Object.values(parameters).forEach((p) => visit(p, 0));
  // One- and two-character values would blank out ordinary words of the message; they name nobody.
  return [...new Set(out.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
}

/**
 * `text` (a database error's message) with every string parameter of the query replaced by
 * [redacted]: PostgreSQL repeats a value it cannot take (`invalid input syntax for type uuid: "…"`).
 */
export function withoutQueryParameters(text: string, parameters: unknown): string {
  let out = text;
  for (const value of parameterStrings(parameters)) out = out.split(value).join(REDACTED);
  return out;
}

interface QueryErrorShape {
  query?: unknown;
  parameters?: unknown;
  message?: unknown;
  stack?: unknown;
}

/**
 * The log form of an error that carries a query's parameters (TypeORM's QueryFailedError, or any
 * error with `query` and `parameters`): the parameters dropped, their values removed from the
 * message and stack, and PostgreSQL's `detail` (`Key (email)=(…)`, `Failing row contains (…)`) left
 * out. Other errors are returned as they are.
 */
export function redactQueryError(serialized: Record<string, unknown>, original: unknown): Record<string, unknown> {
  const e = original as QueryErrorShape | null;
  if (!e || typeof e !== 'object' || !('parameters' in e) || !('query' in e)) return serialized;
  const { parameters: _parameters, driverError: _driverError, detail: _detail, where: _where, ...rest } = serialized;
  const scrub = (v: unknown) => (typeof v === 'string' ? withoutQueryParameters(v, e.parameters) : v);
  return { ...rest, message: scrub(rest['message']), stack: scrub(rest['stack']) };
}
