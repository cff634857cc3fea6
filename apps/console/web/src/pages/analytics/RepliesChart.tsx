import { useMemo } from 'react';
import type { Analytics } from '../../api/types';
import { ChartCanvas } from './ChartCanvas';

/** How the bot's replies went: answered, unanswered, rated helpful, rated unhelpful (a bar chart and a table). */
export function RepliesChart({ analytics }: { analytics: Analytics }) {
  const { unanswered, feedback } = analytics;
  const rows = useMemo(
    () => [
      { label: 'Answered', value: unanswered.total - unanswered.count, color: '#0f7b5f' },
      { label: 'Unanswered', value: unanswered.count, color: '#b3261e' },
      { label: 'Rated helpful', value: feedback.positive, color: '#1a5fcc' },
      { label: 'Rated unhelpful', value: feedback.negative, color: '#8a4b00' },
    ],
    [unanswered, feedback],
  );
  const config = useMemo(
    () => ({
      type: 'bar' as const,
      data: { labels: rows.map((r) => r.label), datasets: [{ label: 'Bot replies', data: rows.map((r) => r.value), backgroundColor: rows.map((r) => r.color) }] },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
    }),
    [rows],
  );
  const words = rows.map((r) => `${r.label.toLowerCase()} ${r.value}`).join(', ');
  return (
    <figure className="figure" aria-labelledby="replies-chart-caption">
      <ChartCanvas config={config} label={`Bot replies: ${words}.`} />
      <figcaption id="replies-chart-caption">
        Bot replies: {unanswered.rate}% unanswered, {feedback.positive} rated helpful, {feedback.negative} rated unhelpful.
      </figcaption>
      <details className="figure__table">
        <summary>Bot replies as a table</summary>
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Bot replies table">
          <table className="table">
            <tbody>
              {rows.map((r) => (
                <tr key={r.label}>
                  <th scope="row">{r.label}</th>
                  <td>{r.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
