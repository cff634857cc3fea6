import { Link } from 'react-router';
import type { Lead } from '../../api/types';
import { capitalise } from '../../lib/format';

/** The lead a conversation became (beside its transcript), linking to its page. */
export function LeadCard({ lead, workspaceId }: { lead: Lead | null; workspaceId: string }) {
  if (!lead) return <p className="empty">This conversation is not a lead.</p>;
  return (
    <dl className="summary summary--card">
      <div>
        <dt>Contact</dt>
        <dd>{[lead.name, lead.email, lead.phone].filter(Boolean).join(' · ') || '—'}</dd>
      </div>
      <div>
        <dt>Score</dt>
        <dd>
          {lead.score} ({capitalise(lead.score_band)})
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>{capitalise(lead.status)}</dd>
      </div>
      <div>
        <dt>Summary</dt>
        <dd>{lead.intent_summary ?? '—'}</dd>
      </div>
      <div>
        <dt>Lead</dt>
        <dd>
          <Link to={`/w/${encodeURIComponent(workspaceId)}/leads?lead=${encodeURIComponent(lead.id)}`}>Open the lead</Link>
        </dd>
      </div>
    </dl>
  );
}
