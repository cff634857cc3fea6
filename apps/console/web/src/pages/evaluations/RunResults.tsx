import type { EvalResult } from '../../api/types';
import { formatDuration } from '../../lib/format';
import { changeText, VERDICT_BADGE, VERDICT_TEXT } from '../../lib/evaluations';
import { PassageList } from '../conversations/Transcript';

function Verdict({ verdict, label }: { verdict: EvalResult['verdict']; label: string }) {
  return (
    <span className={`badge ${VERDICT_BADGE[verdict]}`}>
      <span className="badge__icon" aria-hidden="true" />
      {label}: {VERDICT_TEXT[verdict]}
    </span>
  );
}

function Expected({ r }: { r: EvalResult }) {
  if (r.expect === 'unanswered') return <p className="small muted">Expected: counted unanswered.</p>;
  if (r.expect === 'handoff') return <p className="small muted">Expected: hands off to a person.</p>;
  return (
    <div className="small">
      <span className="muted">Expected to contain:</span>
      <ul className="eval-facts">
        {r.facts.map((f, i) => (
          <li key={i}>{f}</li>
        ))}
      </ul>
    </div>
  );
}

/** One case's outcome: verdicts (rules, and the judge's beside it), why, and behind a disclosure the reply and its passages, all as text. */
function Result({ r, index }: { r: EvalResult; index: number }) {
  const change = changeText(r);
  const headingId = `eval-result-${index}`;
  return (
    <li className={`eval-result eval-result--${r.verdict}`} aria-labelledby={headingId}>
      <div className="eval-result__head">
        <h4 id={headingId} className="eval-result__question">
          {r.question}
        </h4>
        <div className="eval-result__badges">
          {change ? <span className={`tag eval-change eval-change--${r.verdict === 'pass' ? 'better' : 'worse'}`}>{change}</span> : null}
          <Verdict verdict={r.verdict} label="Rules" />
          {r.judge ? <Verdict verdict={r.judge.verdict} label="Judge" /> : null}
        </div>
      </div>
      <p className="eval-result__reason">{r.reason}</p>
      {r.judge ? (
        <p className="small eval-result__judge">
          <span className="muted">Judge: </span>
          {r.judge.reason}{' '}
          <span className="muted">
            (grounded {r.judge.grounded ? 'yes' : 'no'}, correct {r.judge.correct ? 'yes' : 'no'}, complete {r.judge.complete ? 'yes' : 'no'})
          </span>
        </p>
      ) : null}
      <details className="eval-result__detail">
        <summary>Reply and passages</summary>
        <Expected r={r} />
        <p className="small muted">
          {r.language ? `Asked in ${r.language}. ` : ''}
          {r.unanswered ? 'Counted unanswered. ' : ''}
          {r.handoff ? 'Handed off. ' : ''}
          Answered in {formatDuration(r.latency_ms)}.
        </p>
        <h5 className="eval-result__label">Reply</h5>
        <p className="eval-result__reply">{r.reply || <span className="muted">No reply.</span>}</p>
        <h5 className="eval-result__label">Passages the bot was given</h5>
        {r.passages.length > 0 ? <PassageList passages={r.passages} /> : <p className="muted small">None: nothing in the knowledge was near enough.</p>}
      </details>
    </li>
  );
}

/** The run's results, in the service's order (the cases that changed since the previous run first). */
export function RunResults({ results }: { results: EvalResult[] }) {
  if (results.length === 0) return <p className="empty">No results yet.</p>;
  return (
    <ol className="eval-results" aria-label="Results">
      {results.map((r, i) => (
        <Result key={r.case_id} r={r} index={i} />
      ))}
    </ol>
  );
}
