import type { BillingStatus, Plan } from '@sa/contracts';

export interface AccessFacts {
  plan: Plan;
  billingStatus: BillingStatus;
  trialEndsAt: Date | null;
  enterpriseApi: boolean;
  enterpriseWebhooks: boolean;
}

/**
 * Spec part 1, rule 1: live API access is an active Growth trial, an active paid Growth or Scale
 * plan, or an enterprise contract that includes API access. Evaluated per request (a trial that
 * ends mid-cache locks at once); restoring access makes the same token work again.
 */
export function hasLiveApiAccess(w: AccessFacts, now: Date = new Date()): boolean {
  if (w.billingStatus !== 'active') return false;
  switch (w.plan) {
    case 'growth_trial':
      return w.trialEndsAt !== null && w.trialEndsAt.getTime() > now.getTime();
    case 'growth':
    case 'scale':
      return true;
    case 'enterprise':
      return w.enterpriseApi;
  }
}

/** Spec part 1, rule 4: webhooks on the Scale plan, or in an active enterprise contract. */
export function hasWebhooks(w: AccessFacts): boolean {
  if (w.billingStatus !== 'active') return false;
  return w.plan === 'scale' || (w.plan === 'enterprise' && w.enterpriseWebhooks);
}

export interface LiveAccessState {
  ok: boolean;
  code: 'api_locked' | null;
  /** Why the API is locked and what unlocks it (for people: the console's workspace page). */
  reason: string | null;
}

/**
 * Live access as hasLiveApiAccess decides it, with the reason when there is none: what the
 * console shows to explain the 402 `api_locked` every API request gets then.
 */
export function liveAccessState(w: AccessFacts, now: Date = new Date()): LiveAccessState {
  if (hasLiveApiAccess(w, now)) return { ok: true, code: null, reason: null };
  const locked = (why: string): LiveAccessState => ({ ok: false, code: 'api_locked', reason: `${why} Until then every API request answers 402 api_locked.` });
  if (w.billingStatus !== 'active') return locked(`The workspace's billing status is ${w.billingStatus.replace('_', ' ')}: API access returns once billing is active again.`);
  switch (w.plan) {
    case 'growth_trial':
      return locked(
        w.trialEndsAt
          ? `The Growth trial ended on ${w.trialEndsAt.toISOString().slice(0, 10)}: API access returns with a paid Growth or Scale plan.`
          : 'The Growth trial has no end date set: API access returns with a paid Growth or Scale plan.',
      );
    case 'enterprise':
      return locked('The enterprise contract does not include API access: it returns once the contract includes it.');
    default:
      return locked('The plan includes no API access.');
  }
}
