import { useMemo } from 'react';
import type { Analytics } from '../../api/types';
import { ChartFigure } from './ChartFigure';

const USER = '#1a5fcc';
const ASSISTANT = '#0f7b5f';

/** Visitor and bot messages per UTC day, as a bar chart and as a table. */
export function MessagesChart({ daily }: { daily: Analytics['daily'] }) {
  const config = useMemo(
    () => ({
      type: 'bar' as const,
      data: {
        labels: daily.map((d) => d.day.slice(5)),
        datasets: [
          { label: 'Visitor messages', data: daily.map((d) => d.user_messages), backgroundColor: USER },
          { label: 'Bot replies', data: daily.map((d) => d.assistant_messages), backgroundColor: ASSISTANT },
        ],
      },
      options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
    }),
    [daily],
  );
  const users = daily.reduce((n, d) => n + d.user_messages, 0);
  const replies = daily.reduce((n, d) => n + d.assistant_messages, 0);
  return (
    <ChartFigure
      id="messages-chart"
      config={config}
      label={`Messages per day: ${users} visitor messages and ${replies} bot replies from ${daily[0]?.day ?? ''} to ${daily.at(-1)?.day ?? ''}.`}
      caption={`Messages per day (UTC): ${users} visitor messages, ${replies} bot replies.`}
      tableTitle="Messages per day"
    >
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Visitor messages</th>
          <th scope="col">Bot replies</th>
        </tr>
      </thead>
      <tbody>
        {daily.map((d) => (
          <tr key={d.day}>
            <th scope="row">{d.day}</th>
            <td>{d.user_messages}</td>
            <td>{d.assistant_messages}</td>
          </tr>
        ))}
      </tbody>
    </ChartFigure>
  );
}
