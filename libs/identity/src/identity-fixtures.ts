import type { IdentityChangeFeed, IdentitySignal } from './identity-events';
import type { WorkspaceFacts } from './identity-source';

/**
 * A change feed driven by hand: `start` connects and sends a reset (as the real feeds do when
 * their subscription is established), `send` delivers a change. For tests of the caches.
 */
export class ManualIdentityFeed implements IdentityChangeFeed {
  listening = false;
  private receivers: ((s: IdentitySignal) => void)[] = [];

  subscribe(r: (s: IdentitySignal) => void): void {
    this.receivers.push(r);
  }

  async start(): Promise<void> {
    this.listening = true;
    this.send({ kind: 'reset' });
  }

  async stop(): Promise<void> {
    this.listening = false;
  }

  send(s: IdentitySignal): void {
    for (const r of this.receivers) r(s);
  }
}

/** A workspace's facts with every setting at its default (active, no enterprise, no overrides). */
export function workspaceFacts(facts: Pick<WorkspaceFacts, 'id'> & Partial<WorkspaceFacts>): WorkspaceFacts {
  return {
    name: 'w',
    plan: 'growth',
    trialEndsAt: null,
    billingStatus: 'active',
    enterpriseApi: false,
    enterpriseWebhooks: false,
    tierSlots: { starter: 0, growth: 0, scale: 0 },
    messagesPerMonth: null,
    pagesPerBot: null,
    botSlots: null,
    ...facts,
  };
}
