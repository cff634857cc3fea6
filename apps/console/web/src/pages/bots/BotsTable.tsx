import { Link } from 'react-router';
import type { Bot } from '../../api/types';
import { DateTime } from '../../components/DateTime';

/** Each bot with its reply language; its name opens its settings. */
export function BotsTable({ workspaceId, bots }: { workspaceId: string; bots: Bot[] }) {
  if (bots.length === 0) return <p className="empty">No bots yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Bots table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Reply language</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {bots.map((b) => (
            <tr key={b.id}>
              <th scope="row" className="table__name">
                <Link to={`/w/${encodeURIComponent(workspaceId)}/bots/${encodeURIComponent(b.id)}`}>{b.name}</Link>
              </th>
              <td>{b.language}</td>
              <td>
                <DateTime value={b.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
