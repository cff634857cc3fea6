import { Link } from 'react-router';
import type { Bot, Lead } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { botName } from '../../lib/bots';
import { capitalise } from '../../lib/format';
import { channelName } from '../../lib/records';

/** Leads, newest first; a lead's contact opens its detail (?lead=). */
export function LeadsTable({ leads, bots, hrefOf, selected }: { leads: Lead[]; bots: Bot[]; hrefOf: (id: string) => string; selected: string | null }) {
  if (leads.length === 0) return <p className="empty">No leads match.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Leads table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Contact</th>
            <th scope="col">Score</th>
            <th scope="col">Status</th>
            <th scope="col">Channel</th>
            <th scope="col">Bot</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {leads.map((l) => (
            <tr key={l.id} aria-current={l.id === selected ? 'true' : undefined}>
              <th scope="row" className="table__name">
                <Link to={hrefOf(l.id)}>{l.name || l.email || l.phone || `Session ${l.session_id}`}</Link>
                {l.name && l.email ? <span className="block muted small">{l.email}</span> : null}
              </th>
              <td>
                {l.score} <span className={`tag tag--band-${l.score_band}`}>{capitalise(l.score_band)}</span>
              </td>
              <td>{capitalise(l.status)}</td>
              <td>{channelName(l.channel)}</td>
              <td>{l.chatbot_id ? botName(l.chatbot_id, bots) : '—'}</td>
              <td>
                <DateTime value={l.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
