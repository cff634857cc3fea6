/** NOTIFY channel that wakes the dispatcher for deliveries nobody holds (a redeliver, a backlog). */
export const DELIVERIES_CHANNEL = 'webhooks_deliveries';

/** Delivery states: pending (waiting), sending (request in flight), succeeded (2xx) or failed. */
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed';
/** What caused an attempt: the event itself, or a manual redeliver. */
export type AttemptTrigger = 'event' | 'manual';
