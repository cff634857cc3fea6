/**
 * What a failed model call (chat, lead scoring, embeddings; OpenAI SDK or Ollama client) is
 * reported as, the same way for every model.
 */

/**
 * The error's message followed by its causes', e.g. "Connection error. (fetch failed; connect
 * ECONNREFUSED 127.0.0.1:11434)": at most four levels, repeats left out. Duck-typed: fetch's
 * errors come from another realm under jest.
 */
export function modelErrorMessage(err: unknown): string {
  const messages: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const m = typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e);
    if (m && !messages.includes(m)) messages.push(m);
    e = typeof e === 'object' ? (e as { cause?: unknown }).cause : undefined;
  }
  const [first = 'unknown error', ...causes] = messages;
  return causes.length ? `${first} (${causes.join('; ')})` : first;
}

/** The HTTP status of an OpenAI SDK error (`status`) or an Ollama ResponseError (`status_code`). */
export function modelErrorStatus(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { status?: unknown; status_code?: unknown };
  if (typeof e.status === 'number') return e.status;
  if (typeof e.status_code === 'number') return e.status_code;
  return undefined;
}

/** `openai (model m at http://…) failed with HTTP 500: <message (causes)>`; `describe` as describeModel gives it. */
export function modelFailure(describe: string, err: unknown): string {
  const status = modelErrorStatus(err);
  return `${describe} failed${status ? ` with HTTP ${status}` : ''}: ${modelErrorMessage(err)}`;
}
