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
