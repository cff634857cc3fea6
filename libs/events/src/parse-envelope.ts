import { EventEnvelope } from '@sa/contracts';

/** Reused: decode() without { stream: true } keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The envelope carried by a JetStream message, or null when the payload is not one (bad JSON,
 * missing or mistyped fields). The `data` shape is the producer's contract and is not checked.
 */
export function parseEnvelope(payload: Uint8Array | string): EventEnvelope | null {
  let value: unknown;
  try {
    value = JSON.parse(typeof payload === 'string' ? payload : UTF8.decode(payload));
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  const { id, type, tenant_id, occurred_at, data } = value;
  if (typeof id !== 'string' || !UUID.test(id)) return null;
  if (typeof type !== 'string' || type.length === 0) return null;
  if (typeof tenant_id !== 'string' || !UUID.test(tenant_id)) return null;
  if (typeof occurred_at !== 'string' || Number.isNaN(Date.parse(occurred_at))) return null;
  if (!isObject(data)) return null;
  return value as unknown as EventEnvelope;
}
