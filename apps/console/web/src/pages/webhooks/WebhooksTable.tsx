import { Link } from 'react-router';
import type { Bot, Webhook } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { DateTime } from '../../components/DateTime';
import { DeliveryStatus } from '../../components/DeliveryStatus';
import { Tags } from '../../components/Tags';
import { botName } from '../../lib/bots';

/** Each webhook with its last delivery's status beside it (spec part 6). */
export function WebhooksTable({ webhooks, bots }: { webhooks: Webhook[]; bots: Bot[] }) {
  const { workspace } = useCurrentWorkspace();
  if (webhooks.length === 0) return <p className="empty">No webhooks yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Webhooks table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Endpoint URL</th>
            <th scope="col">Events</th>
            <th scope="col">Bots</th>
            <th scope="col">Last delivery</th>
          </tr>
        </thead>
        <tbody>
          {webhooks.map((w) => (
            <tr key={w.id}>
              <th scope="row" className="table__name">
                <Link to={`/w/${encodeURIComponent(workspace.id)}/webhooks/${encodeURIComponent(w.id)}`}>{w.name}</Link>
              </th>
              <td className="table__url">{w.url}</td>
              <td>
                <Tags items={w.events} />
              </td>
              <td>{botName(w.bot_id, bots)}</td>
              <td>
                <div className="stack-xs">
                  <DeliveryStatus delivery={w.last_delivery} />
                  {w.last_delivery ? (
                    <span className="muted small">
                      {w.last_delivery.event} · <DateTime value={w.last_delivery.at} />
                    </span>
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
