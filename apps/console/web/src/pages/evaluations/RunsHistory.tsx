import { useEffect, useMemo, useRef } from 'react';
import { CategoryScale, Chart, Filler, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';
import type { EvalRun } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { formatDateTime } from '../../lib/format';
import { formatPercent, RUN_STATUS_TEXT, TRIGGER_TEXT } from '../../lib/evaluations';

// Only what the line chart uses (chart.js is tree-shaken).
Chart.register(LineController, LineElement, PointElement, CategoryScale, LinearScale, Filler, Tooltip);

const LINE = '#1a5fcc';
const GATE = '#b3261e';

/** The pass rate of each completed run, oldest first, with the gate as a dashed line; an image to assistive technology. */
function HistoryChart({ runs, label }: { runs: EvalRun[]; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const config = useMemo<ChartConfiguration<'line'>>(() => {
    const labels = runs.map((r) => formatDateTime(r.finished_at ?? r.created_at));
    const gate = runs.some((r) => r.min_pass_rate !== null);
    return {
      type: 'line',
      data: {
        labels,
        datasets: [
          { label: 'Pass rate (%)', data: runs.map((r) => Math.round((r.pass_rate ?? 0) * 1000) / 10), borderColor: LINE, backgroundColor: LINE, pointRadius: 4, tension: 0 },
          ...(gate ? [{ label: 'Gate (%)', data: runs.map((r) => (r.min_pass_rate === null ? null : Math.round(r.min_pass_rate * 1000) / 10)), borderColor: GATE, backgroundColor: GATE, borderDash: [6, 4], pointRadius: 0, tension: 0 }] : []),
        ],
      },
      options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { min: 0, max: 100, ticks: { callback: (v) => `${v}%` } } } },
    };
  }, [runs]);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

/** Every run as a table: when, what started it, its state and pass rate; "View" opens its results. */
function RunsTable({ runs, selectedId, onSelect }: { runs: EvalRun[]; selectedId: string | null; onSelect: (id: string) => void }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Runs table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Started by</th>
            <th scope="col">State</th>
            <th scope="col">Passed</th>
            <th scope="col">Pass rate</th>
            <th scope="col">Gate</th>
            <th scope="col">
              <span className="visually-hidden">Results</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} aria-current={r.id === selectedId ? 'true' : undefined}>
              <th scope="row" id={`eval-run-${r.id}`}>
                <DateTime value={r.created_at} />
              </th>
              <td>{TRIGGER_TEXT[r.trigger]}</td>
              <td>
                {RUN_STATUS_TEXT[r.status]}
                {r.below_threshold ? <span className="muted"> (under the gate)</span> : null}
              </td>
              <td>
                {r.passed} of {r.total}
              </td>
              <td>{r.pass_rate === null ? '—' : formatPercent(r.pass_rate)}</td>
              <td>{r.min_pass_rate === null ? '—' : formatPercent(r.min_pass_rate)}</td>
              <td>
                {r.id === selectedId ? (
                  <span className="muted small">Shown</span>
                ) : (
                  <button type="button" className="button button--ghost button--small" aria-describedby={`eval-run-${r.id}`} onClick={() => onSelect(r.id)}>
                    View results
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The runs history: the pass rates as a chart (when two or more runs completed) and every run as a table. */
export function RunsHistory({ runs, selectedId, onSelect }: { runs: EvalRun[]; selectedId: string | null; onSelect: (id: string) => void }) {
  const completed = useMemo(() => runs.filter((r) => r.status === 'completed' && r.pass_rate !== null).reverse(), [runs]);
  if (runs.length === 0) return <p className="empty">No runs yet.</p>;
  const rates = completed.map((r) => formatPercent(r.pass_rate ?? 0)).join(', ');
  return (
    <>
      {completed.length >= 2 ? (
        <figure className="figure eval-history" aria-labelledby="eval-history-caption">
          <HistoryChart runs={completed} label={`Pass rate of the last ${completed.length} completed runs, oldest first: ${rates}.`} />
          <figcaption id="eval-history-caption">Pass rate per completed run, oldest first{completed.some((r) => r.min_pass_rate !== null) ? '; the dashed line is the gate' : ''}. The table below lists every run.</figcaption>
        </figure>
      ) : null}
      <RunsTable runs={runs} selectedId={selectedId} onSelect={onSelect} />
    </>
  );
}
