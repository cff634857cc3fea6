import type { EvalRun } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { InfoMessage } from '../../components/Messages';
import { formatPercent, RUN_STATUS_TEXT, TRIGGER_TEXT } from '../../lib/evaluations';

/** "Answered 3 of 10", as a progress bar (an SVG: the console's CSP allows no inline style). */
export function RunProgress({ run }: { run: EvalRun }) {
  const ratio = run.total > 0 ? Math.min(1, run.done / run.total) : 0;
  return (
    <div className="reindex eval-progress">
      <p id="eval-progress-label" className="reindex__label">
        {run.status === 'queued' ? 'Waiting to start: ' : ''}Answered {run.done} of {run.total}
      </p>
      <div role="progressbar" aria-labelledby="eval-progress-label" aria-valuemin={0} aria-valuemax={run.total} aria-valuenow={run.done} className="reindex__bar">
        <svg className="usage-bar usage-bar--ok" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true" focusable="false">
          <rect className="usage-bar__track" width="100" height="6" rx="3" />
          <rect className="usage-bar__fill" width={ratio * 100} height="6" rx="3" />
        </svg>
      </div>
    </div>
  );
}

/** A run at a glance: its pass rate against the gate, or its progress, or why it stopped. */
export function RunSummary({ run }: { run: EvalRun }) {
  const active = run.status === 'queued' || run.status === 'running';
  return (
    <div className="eval-summary">
      {active ? <RunProgress run={run} /> : null}
      {run.status === 'completed' && run.pass_rate !== null ? (
        <div className="eval-figures">
          <p className="eval-figure">
            <span className="eval-figure__value">{formatPercent(run.pass_rate)}</span>
            <span className="eval-figure__label">Pass rate</span>
          </p>
          <p className="eval-figure">
            <span className="eval-figure__value">
              {run.passed} of {run.total}
            </span>
            <span className="eval-figure__label">Cases passed</span>
          </p>
          <p className="eval-figure">
            <span className="eval-figure__value">{run.min_pass_rate === null ? 'None' : formatPercent(run.min_pass_rate)}</span>
            <span className="eval-figure__label">Gate</span>
          </p>
        </div>
      ) : null}
      {run.below_threshold && run.min_pass_rate !== null && run.pass_rate !== null ? (
        <InfoMessage tone="warning">
          <p>
            Under the gate: {formatPercent(run.pass_rate)} passed, the gate is {formatPercent(run.min_pass_rate)}. The owners and admins were e-mailed.
          </p>
        </InfoMessage>
      ) : null}
      {run.status === 'failed' ? (
        <div className="notice notice--error">
          <span className="notice__icon" aria-hidden="true" />
          <div>
            <p className="notice__title">The run stopped.</p>
            <p>{run.error ?? 'It could not finish.'}</p>
          </div>
        </div>
      ) : null}
      {run.status === 'cancelled' ? (
        <InfoMessage>
          <p>Cancelled: a newer run replaced it.</p>
        </InfoMessage>
      ) : null}
      <p className="muted small">
        {RUN_STATUS_TEXT[run.status]}. Started <DateTime value={run.created_at} /> ({TRIGGER_TEXT[run.trigger]})
        {run.finished_at ? (
          <>
            , finished <DateTime value={run.finished_at} />
          </>
        ) : null}
        . Model tokens used: {run.tokens_used} of {run.token_budget}.
      </p>
    </div>
  );
}
