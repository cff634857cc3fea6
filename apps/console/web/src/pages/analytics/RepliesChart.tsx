import { useMemo } from 'react';
import type { Analytics } from '../../api/types';
import { ChartFigure } from './ChartFigure';

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
  return (
    <ChartFigure
      id="replies-chart"
      config={config}
      label={`Bot replies: ${rows.map((r) => `${r.label.toLowerCase()} ${r.value}`).join(', ')}.`}
      caption={`Bot replies: ${unanswered.rate}% unanswered, ${feedback.positive} rated helpful, ${feedback.negative} rated unhelpful.`}
      tableTitle="Bot replies"
    >
      <tbody>
        {rows.map((r) => (
          <tr key={r.label}>
            <th scope="row">{r.label}</th>
            <td>{r.value}</td>
          </tr>
        ))}
      </tbody>
    </ChartFigure>
  );
}
