import type { LastDelivery } from '../api/types';

type Status = LastDelivery['status'];

/** "succeeded 200", "failed 500", "failed (timeout)", "pending": words first, colour and icon only repeat them. */
export function deliveryStatusText(d: { status: Status; status_code: number | null; error: string | null }): string {
  if (d.status === 'succeeded' || d.status === 'failed') {
    if (d.status_code !== null) return `${d.status} ${d.status_code}`;
    if (d.status === 'failed' && d.error) return `failed (${d.error})`;
  }
  return d.status;
}

export function DeliveryStatus({ delivery }: { delivery: { status: Status; status_code: number | null; error: string | null } | null }) {
  if (delivery === null) return <span className="badge badge--neutral">no deliveries yet</span>;
  return (
    <span className={`badge badge--${delivery.status}`}>
      <span className="badge__icon" aria-hidden="true" />
      {deliveryStatusText(delivery)}
    </span>
  );
}
