import 'reflect-metadata';
import { BILLING_STATUSES, BillingStatus, PLANS, Plan } from '@sa/contracts';
import { AccessFacts, hasLiveApiAccess, hasWebhooks, liveAccessState } from './live-access';

const NOW = new Date('2030-06-15T12:00:00.000Z');
const TRIALS: [string, Date | null][] = [
  ['no trial end', null],
  ['trial ended a day ago', new Date(NOW.getTime() - 86400_000)],
  ['trial ended 1 ms ago', new Date(NOW.getTime() - 1)],
  ['trial ends this instant', new Date(NOW.getTime())],
  ['trial ends in 1 ms', new Date(NOW.getTime() + 1)],
  ['trial ends in a week', new Date(NOW.getTime() + 7 * 86400_000)],
];

function facts(plan: Plan, billingStatus: BillingStatus, trialEndsAt: Date | null, enterpriseApi: boolean, enterpriseWebhooks = false): AccessFacts {
  return { plan, billingStatus, trialEndsAt, enterpriseApi, enterpriseWebhooks };
}

/** Spec part 1, rule 1, written as the list of the ways to have access. */
function expectedAccess(plan: Plan, status: BillingStatus, trialEndsAt: Date | null, enterpriseApi: boolean): boolean {
  if (status !== 'active') return false;
  if (plan === 'growth' || plan === 'scale') return true;
  if (plan === 'growth_trial') return trialEndsAt !== null && trialEndsAt > NOW;
  return enterpriseApi;
}

const matrix: [Plan, BillingStatus, string, Date | null, boolean, boolean][] = [];
for (const plan of PLANS)
  for (const status of BILLING_STATUSES)
    for (const [label, trial] of TRIALS)
      for (const enterpriseApi of [false, true]) matrix.push([plan, status, label, trial, enterpriseApi, expectedAccess(plan, status, trial, enterpriseApi)]);

describe('hasLiveApiAccess', () => {
  it('covers every plan × billing status × trial date × enterprise flag', () => {
    expect(matrix).toHaveLength(PLANS.length * BILLING_STATUSES.length * TRIALS.length * 2);
    expect(matrix).toHaveLength(144);
  });

  it.each(matrix)('%s, %s, %s, enterprise_api=%s → %s', (plan, status, _label, trial, enterpriseApi, expected) => {
    expect(hasLiveApiAccess(facts(plan, status, trial, enterpriseApi), NOW)).toBe(expected);
  });

  it('grants exactly these active combinations', () => {
    const granted = matrix.filter(([, , , , , ok]) => ok).map(([plan, status, label, , api]) => `${plan}/${status}/${label}/${api}`);
    // growth and scale: 6 trial dates × 2 flags each; trial: 2 future dates × 2 flags; enterprise: 6 dates with the flag.
    expect(granted).toHaveLength(12 + 12 + 4 + 6);
    expect(granted.every((g) => g.includes('/active/'))).toBe(true);
  });

  it('locks past_due and canceled workspaces whatever the plan', () => {
    for (const plan of PLANS)
      for (const status of ['past_due', 'canceled'] as const) {
        expect(hasLiveApiAccess(facts(plan, status, new Date(NOW.getTime() + 86400_000), true, true), NOW)).toBe(false);
      }
  });

  it('locks a trial the moment it ends', () => {
    const w = facts('growth_trial', 'active', new Date(NOW.getTime() + 1000), false);
    expect(hasLiveApiAccess(w, NOW)).toBe(true);
    expect(hasLiveApiAccess(w, new Date(NOW.getTime() + 999))).toBe(true);
    expect(hasLiveApiAccess(w, new Date(NOW.getTime() + 1000))).toBe(false);
  });

  it('uses the current time by default', () => {
    expect(hasLiveApiAccess(facts('growth_trial', 'active', new Date(Date.now() + 60_000), false))).toBe(true);
    expect(hasLiveApiAccess(facts('growth_trial', 'active', new Date(Date.now() - 60_000), false))).toBe(false);
  });

  it('restores access when billing becomes active again', () => {
    const w = facts('scale', 'past_due', null, false);
    expect(hasLiveApiAccess(w, NOW)).toBe(false);
    w.billingStatus = 'active';
    expect(hasLiveApiAccess(w, NOW)).toBe(true);
  });
});

describe('hasWebhooks', () => {
  const cases: [Plan, BillingStatus, boolean, boolean][] = [];
  for (const plan of PLANS) for (const status of BILLING_STATUSES) for (const wh of [false, true]) cases.push([plan, status, wh, status === 'active' && (plan === 'scale' || (plan === 'enterprise' && wh))]);

  it.each(cases)('%s, %s, enterprise_webhooks=%s → %s', (plan, status, enterpriseWebhooks, expected) => {
    expect(hasWebhooks(facts(plan, status, null, false, enterpriseWebhooks))).toBe(expected);
  });

  it('is on for exactly scale (either flag) and enterprise with the flag, when active', () => {
    expect(cases.filter(([, , , ok]) => ok).map(([p, , wh]) => `${p}/${wh}`)).toEqual(['scale/false', 'scale/true', 'enterprise/true']);
  });

  it('does not depend on API access or the trial', () => {
    expect(hasWebhooks(facts('enterprise', 'active', null, false, true))).toBe(true);
    expect(hasWebhooks(facts('growth_trial', 'active', new Date(Date.now() + 86400_000), true, true))).toBe(false);
    expect(hasWebhooks(facts('growth', 'active', null, true, true))).toBe(false);
  });
});

describe('liveAccessState', () => {
  it('agrees with hasLiveApiAccess everywhere, and explains every lock', () => {
    for (const plan of PLANS)
      for (const status of BILLING_STATUSES)
        for (const [, trialEndsAt] of TRIALS)
          for (const api of [false, true]) {
            const w = facts(plan, status, trialEndsAt, api);
            const state = liveAccessState(w, NOW);
            expect(state.ok).toBe(hasLiveApiAccess(w, NOW));
            if (state.ok) expect(state).toEqual({ ok: true, code: null, reason: null });
            else expect(state).toEqual({ ok: false, code: 'api_locked', reason: expect.stringMatching(/402 api_locked\.$/) });
          }
  });

  it('names the cause', () => {
    expect(liveAccessState(facts('scale', 'past_due', null, false), NOW).reason).toMatch(/^The workspace's billing status is past due/);
    expect(liveAccessState(facts('growth_trial', 'active', new Date('2030-06-01T00:00:00Z'), false), NOW).reason).toMatch(/^The Growth trial ended on 2030-06-01/);
    expect(liveAccessState(facts('enterprise', 'active', null, false), NOW).reason).toMatch(/^The enterprise contract does not include API access/);
  });
});
