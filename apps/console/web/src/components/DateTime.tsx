import { formatDateTime } from '../lib/format';

/** A point in time, or `empty` (e.g. "Never") when there is none. */
export function DateTime({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>;
  return <time dateTime={value}>{formatDateTime(value)}</time>;
}
