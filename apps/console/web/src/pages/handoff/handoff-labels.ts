import type { Handoff } from '../../api/handoff';

/** A handoff's state in words: waiting, with whom, or handed back. */
export function stateLabel(h: Pick<Handoff, 'state' | 'taken_by_label'>): string {
  if (h.state === 'requested') return 'Waiting for a person';
  if (h.state === 'taken') return `Taken over by ${h.taken_by_label ?? 'a person'}`;
  return 'Handed back to the bot';
}

/** Channels whose replies leave through a provider (issue 35), so the visitor reads them there, not in a widget. */
const PROVIDER_CHANNELS = new Set(['whatsapp', 'telegram', 'slack', 'email']);

/** Where the visitor will read a person's reply, under the reply box. */
export function replyNote(channel: string, name: string): string {
  return PROVIDER_CHANNELS.has(channel) ? `Sent to the visitor on ${name}.` : 'The visitor sees it in their chat at once.';
}
