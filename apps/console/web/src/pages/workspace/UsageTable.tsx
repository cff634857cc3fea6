import type { Workspace } from '../../api/types';
import { formatNumber, formatQuota } from '../../lib/format';

function Bar({ used, limit }: { used: number; limit: number | null }) {
  if (limit === null || limit <= 0) return null;
  const ratio = Math.min(1, used / limit);
  const level = ratio >= 1 ? 'full' : ratio >= 0.8 ? 'high' : 'ok';
  // Decoration only: the numbers beside it say the same.
  return (
    <svg className={`usage-bar usage-bar--${level}`} viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect className="usage-bar__track" width="100" height="6" rx="3" />
      <rect className="usage-bar__fill" width={Math.max(ratio * 100, used > 0 ? 2 : 0)} height="6" rx="3" />
    </svg>
  );
}

function Row({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const over = limit !== null && used >= limit;
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>
        <div className="usage">
          <span>
            {formatQuota(used, limit)}
            {over ? <strong className="usage__over"> (limit reached)</strong> : null}
          </span>
          <Bar used={used} limit={limit} />
        </div>
      </td>
    </tr>
  );
}

/** Messages this month, bot slots and pages per bot against the plan's quotas. */
export function UsageTable({ usage }: { usage: Workspace['usage'] }) {
  const pages = usage.pages_per_bot;
  return (
    <>
      <div className="table-wrap">
        <table className="table table--usage">
          <caption className="visually-hidden">Usage against the quotas</caption>
          <thead>
            <tr>
              <th scope="col">Quota</th>
              <th scope="col">Used</th>
            </tr>
          </thead>
          <tbody>
            <Row label="Messages this month" used={usage.messages_this_month.used} limit={usage.messages_this_month.limit} />
            <Row label="Bot slots" used={usage.bot_slots.used} limit={usage.bot_slots.limit} />
          </tbody>
        </table>
      </div>
      <h3 className="subheading">Pages per bot {pages.limit === null ? '(no limit)' : `(limit ${formatNumber(pages.limit)} each)`}</h3>
      {pages.bots.length === 0 ? (
        <p className="empty">No bots yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table table--usage">
            <thead>
              <tr>
                <th scope="col">Bot</th>
                <th scope="col">Pages</th>
              </tr>
            </thead>
            <tbody>
              {pages.bots.map((b) => (
                <Row key={b.bot_id} label={b.name} used={b.pages} limit={pages.limit} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
