import 'reflect-metadata';
import { WEBHOOK_EVENT_TYPES } from '@sa/contracts';
import { WebhookInputError, parseWebhookEvents } from './webhook-admin';

function inputError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookInputError);
    return (err as Error).message;
  }
  throw new Error('expected a WebhookInputError');
}

describe('parseWebhookEvents', () => {
  it('expands all to the five kinds of spec part 6', () => {
    expect(parseWebhookEvents(['all'])).toEqual(['lead.created', 'conversation.handoff', 'message.unanswered', 'ticket.created', 'booking.created']);
    expect(parseWebhookEvents([' all '])).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('returns a copy, not the shared list', () => {
    const events = parseWebhookEvents(['all']);
    events.pop();
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(5);
  });

  it('keeps the canonical order whatever order they were given in', () => {
    expect(parseWebhookEvents(['booking.created', 'lead.created'])).toEqual(['lead.created', 'booking.created']);
    expect(parseWebhookEvents(['ticket.created', 'message.unanswered', 'conversation.handoff'])).toEqual(['conversation.handoff', 'message.unanswered', 'ticket.created']);
  });

  it('drops repeats and blank items, and trims', () => {
    expect(parseWebhookEvents(['lead.created', ' lead.created ', '', 'lead.created'])).toEqual(['lead.created']);
  });

  it('refuses unknown kinds, naming them and the known ones', () => {
    const message = inputError(() => parseWebhookEvents(['lead.created', 'lead.updated', 'LEAD.CREATED']));
    expect(message).toBe(`unknown event kind(s): lead.updated, LEAD.CREATED (known: ${WEBHOOK_EVENT_TYPES.join(', ')})`);
  });

  it('refuses an empty list', () => {
    expect(inputError(() => parseWebhookEvents([]))).toMatch(/--events needs at least one of: lead\.created, .* \(or all\)/);
    expect(inputError(() => parseWebhookEvents(['', '  ']))).toMatch(/needs at least one/);
  });

  it('refuses all together with other kinds', () => {
    expect(inputError(() => parseWebhookEvents(['all', 'lead.created']))).toBe('--events all cannot be combined with other event kinds');
  });
});
