import type { Handoff } from '../../api/handoff';

/** A handoff's state in words: waiting, with whom, or handed back. */
export function stateLabel(h: Pick<Handoff, 'state' | 'taken_by_label'>): string {
  if (h.state === 'requested') return 'Waiting for a person';
  if (h.state === 'taken') return `Taken over by ${h.taken_by_label ?? 'a person'}`;
  return 'Handed back to the bot';
}
