import { useDeleteKnowledge, useResync, useSchedule, type KbDocument, type ResyncSchedule } from '../../api/knowledge';
import type { Bot } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ActionButton } from '../../components/ActionButton';
import { DateTime } from '../../components/DateTime';
import { ConfirmButton } from '../../components/Dialogs';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { botName } from '../../lib/bots';
import { formatNumber } from '../../lib/format';

const TYPE_LABELS: Record<KbDocument['source_type'], string> = { url: 'Web page', file: 'File', qa: 'Q&A', snippet: 'Text' };
export const STATUS_LABELS: Record<KbDocument['status'], string> = { queued: 'Queued', processing: 'Processing', ready: 'Ready', failed: 'Failed' };
export const STATUS_BADGES: Record<KbDocument['status'], string> = { queued: 'pending', processing: 'sending', ready: 'succeeded', failed: 'failed' };
const SCHEDULES: { value: ResyncSchedule; label: string }[] = [
  { value: 'none', label: 'Not scheduled' },
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
];

/** A crawled source's progress (issue 36): "1,000 pages found · 960 ready · 20 failed". */
export function crawlProgress(pages: NonNullable<KbDocument['pages']>): string {
  return `${formatNumber(pages.found)} ${pages.found === 1 ? 'page' : 'pages'} found · ${formatNumber(pages.ready)} ready · ${formatNumber(pages.failed)} failed`;
}

/** Each document with its status (and why it failed), chunks and bot; owners and admins act on it. */
export function DocumentsTable({ documents, bots }: { documents: KbDocument[]; bots: Bot[] }) {
  const { canManage } = useCurrentWorkspace();
  if (documents.length === 0) return <p className="empty">No knowledge yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Knowledge documents table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Chunks</th>
            <th scope="col">Bot</th>
            <th scope="col">Added</th>
            {canManage ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {documents.map((d) => (
            <tr key={d.id}>
              <th scope="row" className="table__name">
                <div className="stack-xs">
                  <span>{d.title}</span>
                  {d.source_url ? <span className="muted small table__url">{d.source_url}</span> : null}
                </div>
              </th>
              <td>{TYPE_LABELS[d.source_type]}</td>
              <td>
                <div className="stack-xs">
                  <span className={`badge badge--${STATUS_BADGES[d.status]}`}>
                    <span className="badge__icon" aria-hidden="true" />
                    {STATUS_LABELS[d.status]}
                  </span>
                  {d.status === 'failed' && d.failure_reason ? <span className="muted small">{d.failure_reason}</span> : null}
                  {d.pages ? <span className="muted small">{crawlProgress(d.pages)}</span> : null}
                </div>
              </td>
              <td>{d.chunk_count}</td>
              <td>{botName(d.chatbot_id, bots)}</td>
              <td>
                <DateTime value={d.created_at} />
              </td>
              {canManage ? (
                <td>
                  <DocumentActions document={d} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Re-sync and schedule (URL sources, not the pages found on them), and delete with a confirmation. */
function DocumentActions({ document: d }: { document: KbDocument }) {
  const { workspace } = useCurrentWorkspace();
  const remove = useDeleteKnowledge(workspace.id);
  const resync = useResync(workspace.id);
  const schedule = useSchedule(workspace.id);
  const isSource = d.source_type === 'url' && !d.parent_id;
  return (
    <div className="stack-xs">
      <div className="actions__buttons">
        {isSource ? (
          <ActionButton className="button button--secondary button--small" isPending={resync.isPending} onPress={() => resync.mutate(d.id)} aria-label={`Re-sync now: ${d.title}`}>
            Re-sync now
          </ActionButton>
        ) : null}
        <ConfirmButton trigger="Delete" title={`Delete “${d.title}”?`} onConfirm={() => remove.mutateAsync(d.id)}>
          <p>Its text leaves the knowledge base at once and bots stop using it.{d.source_type === 'url' && !d.parent_id ? ' Pages found on this site go with it.' : ''}</p>
        </ConfirmButton>
      </div>
      {isSource ? (
        <SelectInput
          label={`Re-sync schedule of ${d.title}`}
          hideLabel
          id={`schedule-${d.id}`}
          value={d.resync_schedule ?? 'none'}
          onChange={(v) => schedule.mutate({ documentId: d.id, schedule: v as ResyncSchedule })}
          options={SCHEDULES}
          isDisabled={schedule.isPending}
        />
      ) : null}
      <ErrorMessage error={resync.error ?? schedule.error} />
    </div>
  );
}
