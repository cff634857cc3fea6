import { useLead } from '../../api/records';
import type { LeadDetail as Detail } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Section } from '../../components/Page';
import { capitalise } from '../../lib/format';
import { channelName, leadStatusName } from '../../lib/records';
import { Transcript } from '../conversations/Transcript';
import { LeadStatusForm } from './LeadStatusForm';

function LeadSummary({ lead }: { lead: Detail['lead'] }) {
  const rows: [string, string | null][] = [
    ['Name', lead.name],
    ['E-mail', lead.email],
    ['Phone', lead.phone],
    ['Company', lead.company],
    ['Score', `${lead.score} (${capitalise(lead.score_band)})`],
    ['Status', leadStatusName(lead.status)],
    ['Intent', lead.intent_category],
    ['Summary', lead.intent_summary],
    ['Sentiment', lead.sentiment],
    ['Captured', capitalise(lead.captured_via)],
    ['Channel', channelName(lead.channel)],
    ['Session', lead.session_id],
  ];
  return (
    <dl className="summary summary--card">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

function Qualification({ answers }: { answers: Record<string, string> | null }) {
  const entries = Object.entries(answers ?? {});
  if (entries.length === 0) return <p className="empty">No qualification answers.</p>;
  return (
    <dl className="summary summary--card">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function History({ changes }: { changes: Detail['history'] }) {
  if (changes.length === 0) return <p className="empty">The status has not been changed.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Status history table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Change</th>
            <th scope="col">By</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((c) => (
            <tr key={c.id}>
              <th scope="row">
                <DateTime value={c.created_at} />
              </th>
              <td>
                {leadStatusName(c.from_status)} → {leadStatusName(c.to_status)}
              </td>
              <td>{c.actor.label}</td>
              <td>{c.note ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One lead: qualification, summary, status (changed by owners and admins), history and transcript. */
export function LeadDetail({ workspaceId, leadId, canManage }: { workspaceId: string; leadId: string; canManage: boolean }) {
  const detail = useLead(workspaceId, leadId);
  if (detail.isPending) return <Loading what="the lead" />;
  if (detail.isError) return <ErrorMessage error={detail.error} />;
  const { lead, history, messages } = detail.data;
  return (
    <Section title="Lead" id="lead-detail" description={lead.name || lead.email || `Session ${lead.session_id}`}>
      <div className="records__detail">
        <div>
          <LeadSummary lead={lead} />
          <h3 className="subheading">Qualification</h3>
          <Qualification answers={lead.qualification} />
        </div>
        <div>
          {canManage ? (
            <>
              <h3 className="subheading">Change status</h3>
              <LeadStatusForm key={lead.id} workspaceId={workspaceId} lead={lead} />
            </>
          ) : null}
        </div>
      </div>
      <h3 className="subheading">Status history</h3>
      <History changes={history} />
      <h3 className="subheading">Transcript</h3>
      <Transcript messages={messages} label="Lead transcript" />
    </Section>
  );
}
