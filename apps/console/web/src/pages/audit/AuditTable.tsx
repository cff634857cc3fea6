import type { AuditEntry } from '../../api/types';
import { DateTime } from '../../components/DateTime';

function detailText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(detailText).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The non-secret details of a change, as text (never markup). */
function Details({ details }: { details: AuditEntry['details'] }) {
  const entries = Object.entries(details ?? {});
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="details">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{detailText(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0) return <p className="empty">Nothing has changed yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Audit log table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <td>
                <DateTime value={e.at} />
              </td>
              <td>
                {e.actor.label}
                {e.actor.kind === 'cli' ? <span className="tag">CLI</span> : null}
              </td>
              <th scope="row" className="table__name">
                <code>{e.action}</code>
              </th>
              <td>
                {e.target_kind ? (
                  <>
                    {e.target_kind}
                    {e.target_id ? <span className="muted small block">{e.target_id}</span> : null}
                  </>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td>
                <Details details={e.details} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
