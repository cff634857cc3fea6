import type { ActionCount } from '../../api/action-records';
import { formatDuration, formatNumber } from '../../lib/format';

const n = formatNumber;
const SOURCE_TEXT: Record<ActionCount['source'], string> = { custom: 'Custom', builtin: 'Built-in', mcp: 'MCP server' };

/**
 * Calls per action (issue 34, item 5), most called first: what became of them and how long those
 * that ran took. Names are the bots' tool names, shown as text.
 */
export function ActionCountsTable({ actions }: { actions: ActionCount[] }) {
  if (actions.length === 0) return <p className="empty">No actions were called in the last 30 days.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Calls per action table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Source</th>
            <th scope="col">Calls</th>
            <th scope="col">Succeeded</th>
            <th scope="col">Failed</th>
            <th scope="col">Refused</th>
            <th scope="col">Cancelled or waiting</th>
            <th scope="col">Average duration</th>
          </tr>
        </thead>
        <tbody>
          {actions.map((a) => (
            <tr key={`${a.source}:${a.name}`}>
              <th scope="row" className="table__name">
                {a.name}
              </th>
              <td>{SOURCE_TEXT[a.source]}</td>
              <td>{n(a.calls)}</td>
              <td>{n(a.succeeded)}</td>
              <td>{n(a.failed)}</td>
              <td>{n(a.refused)}</td>
              <td>{n(a.cancelled + a.awaiting)}</td>
              <td>{formatDuration(a.avg_duration_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
