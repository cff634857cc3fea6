import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { leadsExportUrl, useLeads, type LeadFilter } from '../../api/records';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { CHANNEL_OPTIONS, LEAD_STATUS_OPTIONS, SCORE_BAND_OPTIONS } from '../../lib/records';
import { LeadDetail } from './LeadDetail';
import { LeadsTable } from './LeadsTable';

const MIN_SCORES = [0, 20, 40, 60, 70, 80, 90];

/** /w/:ws/leads: filters (kept in the address), a page of leads, "Export CSV", and ?lead= opens one. */
export function LeadsPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const [params, setParams] = useSearchParams();
  const bots = useBots(workspace.id);
  const minScore = Number(params.get('minScore') ?? '');
  const filter: LeadFilter = {
    band: (params.get('band') || undefined) as LeadFilter['band'],
    status: (params.get('status') || undefined) as LeadFilter['status'],
    channel: (params.get('channel') || undefined) as LeadFilter['channel'],
    chatbotId: params.get('bot') || undefined,
    minScore: Number.isInteger(minScore) && minScore > 0 ? minScore : undefined,
  };
  // Cursors of the pages before the current one ("Previous page").
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const leads = useLeads(workspace.id, filter, cursor);
  const selected = params.get('lead');

  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setCursors([null]);
    setParams(next);
  };
  const leadHref = (id: string) => {
    const next = new URLSearchParams(params);
    next.set('lead', id);
    return `?${next.toString()}`;
  };

  return (
    <Page
      title="Leads"
      description="Visitors the bots scored for buying intent. Change a lead's status as you follow it up; every change is kept with who made it and when."
      actions={
        <a className="button button--secondary" href={leadsExportUrl(workspace.id, filter)} download>
          Export CSV
        </a>
      }
    >
      <Section title="Filters" id="lead-filters">
        <div className="form form--inline" role="group" aria-labelledby="lead-filters">
          <div className="form__row">
            <SelectInput label="Band" id="leads-band" value={filter.band ?? ''} onChange={(v) => setParam('band', v)} options={[{ value: '', label: 'All bands' }, ...SCORE_BAND_OPTIONS]} />
            <SelectInput
              label="Minimum score"
              id="leads-min-score"
              value={String(filter.minScore ?? '')}
              onChange={(v) => setParam('minScore', v === '0' ? '' : v)}
              options={MIN_SCORES.map((s) => ({ value: s === 0 ? '' : String(s), label: s === 0 ? 'Any score' : `${s} or more` }))}
            />
            <SelectInput label="Status" id="leads-status" value={filter.status ?? ''} onChange={(v) => setParam('status', v)} options={[{ value: '', label: 'All statuses' }, ...LEAD_STATUS_OPTIONS]} />
            <SelectInput label="Channel" id="leads-channel" value={filter.channel ?? ''} onChange={(v) => setParam('channel', v)} options={[{ value: '', label: 'All channels' }, ...CHANNEL_OPTIONS]} />
            <SelectInput
              label="Bot"
              id="leads-bot"
              value={filter.chatbotId ?? ''}
              onChange={(v) => setParam('bot', v)}
              options={[{ value: '', label: 'All bots' }, ...(bots.data ?? []).map((b) => ({ value: b.id, label: b.name }))]}
            />
          </div>
        </div>
      </Section>
      <Section title="Leads" id="leads-list">
        {leads.isPending ? (
          <Loading what="leads" />
        ) : leads.isError ? (
          <ErrorMessage error={leads.error} />
        ) : (
          <>
            <LeadsTable leads={leads.data.data} bots={bots.data ?? []} hrefOf={leadHref} selected={selected} />
            {cursors.length > 1 || leads.data.next ? (
              <div className="form__actions">
                <button type="button" className="button button--secondary button--small" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
                  Previous page
                </button>
                <button type="button" className="button button--secondary button--small" disabled={!leads.data.next} onClick={() => leads.data.next && setCursors([...cursors, leads.data.next])}>
                  Next page
                </button>
              </div>
            ) : null}
          </>
        )}
      </Section>
      {selected ? <LeadDetail workspaceId={workspace.id} leadId={selected} canManage={canManage} /> : null}
    </Page>
  );
}
