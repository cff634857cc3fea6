import { useState } from 'react';
import { useDeliveries, useRedeliver } from '../../api/webhooks';
import type { Delivery } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { DateTime } from '../../components/DateTime';
import { DeliveryStatus } from '../../components/DeliveryStatus';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { formatDuration } from '../../lib/format';
import { ActionButton } from '../../components/ActionButton';

function outcome(d: Delivery): string {
  if (d.status_code !== null) return `HTTP ${d.status_code}`;
  return d.error ?? '—';
}

/** Event, status, status code or error, duration, time, and "Redeliver" per delivery. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const { workspace, canManage } = useCurrentWorkspace();
  const deliveries = useDeliveries(workspace.id, webhookId);
  const redeliver = useRedeliver(workspace.id, webhookId);
  const [redelivered, setRedelivered] = useState<string | null>(null);

  if (deliveries.isPending) return <Loading what="deliveries" />;
  if (deliveries.isError) return <ErrorMessage error={deliveries.error} />;
  if (deliveries.data.length === 0) return <p className="empty">No deliveries yet. Send a test event to try the endpoint.</p>;
  return (
    <>
      {redelivered ? <SuccessMessage>Redelivery of {redelivered} queued.</SuccessMessage> : null}
      <ErrorMessage error={redeliver.error} title="The delivery was not sent again." />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Delivery log table">
        <table className="table table--compact">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Status code or error</th>
              <th scope="col">Duration</th>
              <th scope="col">Time</th>
              <th scope="col">Attempts</th>
              {canManage ? <th scope="col"><span className="visually-hidden">Actions</span></th> : null}
            </tr>
          </thead>
          <tbody>
            {deliveries.data.map((d) => (
              <tr key={d.id}>
                <th scope="row" id={`delivery-${d.id}`} className="table__name">
                  {d.event}
                  <span className="muted small block">{d.event_id}</span>
                </th>
                <td>
                  <DeliveryStatus delivery={d} />
                </td>
                <td className="table__error">{outcome(d)}</td>
                <td>{formatDuration(d.duration_ms)}</td>
                <td>
                  <DateTime value={d.last_attempt_at ?? d.created_at} />
                </td>
                <td>{d.attempts}</td>
                {canManage ? (
                  <td className="table__actions">
                    <ActionButton
                      className="button button--secondary button--small"
                      aria-describedby={`delivery-${d.id}`}
                      isPending={redeliver.isPending && redeliver.variables === d.id}
                      onPress={() => redeliver.mutate(d.id, { onSuccess: () => setRedelivered(d.event) })}
                    >
                      Redeliver
                    </ActionButton>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
