import type { ChatMessage } from '../../api/types';
import { formatDuration } from '../../lib/format';

export type ActionCall = NonNullable<ChatMessage['actions']>[number];

const SOURCE_TEXT: Record<ActionCall['source'], string> = { custom: 'custom action', builtin: 'built-in action', mcp: 'MCP server tool' };
/** Longest result the records keep (characters): a result of this length was probably cut. */
const RESULT_MAX = 1000;

/** What became of a call, in words. */
export function callOutcome(c: ActionCall): string {
  switch (c.state) {
    case 'ran':
      return c.ok ? 'Succeeded' : 'Failed';
    case 'refused':
      return 'Refused';
    case 'awaiting_confirmation':
      return "Waiting for the visitor's confirmation";
    case 'cancelled':
      return 'Cancelled by the visitor';
  }
}

/**
 * The calls of actions the bot made for an answer (issue 34, item 5), for owners and admins (the API
 * sends `actions` only to them). A native disclosure, closed at first; each call's name, outcome,
 * HTTP status, duration, input and (cut) result, every one of them rendered as text.
 */
export function ActionCalls({ calls }: { calls: ActionCall[] }) {
  return (
    <details className="transcript__why transcript__calls">
      <summary>{calls.length === 1 ? 'Action called (1)' : `Actions called (${calls.length})`}</summary>
      <ol className="transcript__passages" aria-label="Actions the bot called">
        {calls.map((c) => (
          <li key={c.id} className="transcript__passage">
            <div className="transcript__passage-meta">
              <span className="transcript__passage-title">{c.name}</span>
              <span className={`small transcript__call-outcome transcript__call-outcome--${c.state === 'ran' ? (c.ok ? 'ok' : 'failed') : 'other'}`}>{callOutcome(c)}</span>
            </div>
            <dl className="transcript__call-facts small">
              <dt>Source</dt>
              <dd>{SOURCE_TEXT[c.source]}</dd>
              {c.http_status !== null ? (
                <>
                  <dt>HTTP status</dt>
                  <dd>{c.http_status}</dd>
                </>
              ) : null}
              {c.state === 'ran' ? (
                <>
                  <dt>Duration</dt>
                  <dd>{formatDuration(c.duration_ms)}</dd>
                </>
              ) : null}
              {c.error ? (
                <>
                  <dt>Error</dt>
                  <dd>{c.error}</dd>
                </>
              ) : null}
              <dt>Input</dt>
              <dd>
                <code className="transcript__call-code">{JSON.stringify(c.input)}</code>
              </dd>
              {c.result ? (
                <>
                  <dt>Result</dt>
                  <dd>
                    <span className="transcript__call-result">{c.result}</span>
                    {c.result.length >= RESULT_MAX ? <span className="muted"> (cut to the first {RESULT_MAX} characters)</span> : null}
                  </dd>
                </>
              ) : null}
            </dl>
          </li>
        ))}
      </ol>
    </details>
  );
}
