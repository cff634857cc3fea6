import 'reflect-metadata';
import { PLANS } from '@sa/contracts';
import { DEFAULT_PLAN_LIMITS, entitlementsOf, mergePlanLimits } from './entitlements';
import { workspaceFacts } from './identity-fixtures';
import type { WorkspaceFacts } from './identity-source';

function workspace(overrides: Partial<WorkspaceFacts> = {}): WorkspaceFacts {
  return { ...workspaceFacts({ id: '00000000-0000-4000-8000-000000000001', name: 'Acme' }), ...overrides };
}

describe('DEFAULT_PLAN_LIMITS', () => {
  it('has the documented defaults for every plan', () => {
    expect(Object.keys(DEFAULT_PLAN_LIMITS).sort()).toEqual([...PLANS].sort());
    expect(DEFAULT_PLAN_LIMITS).toEqual({
      growth_trial: { botSlots: 3, messagesPerMonth: 5000, pagesPerBot: 500, widgetMessagesPerBotPerMonth: 500 },
      growth: { botSlots: 3, messagesPerMonth: 5000, pagesPerBot: 500, widgetMessagesPerBotPerMonth: 2000 },
      scale: { botSlots: 10, messagesPerMonth: 25000, pagesPerBot: 2000, widgetMessagesPerBotPerMonth: 10000 },
      enterprise: { botSlots: 0, messagesPerMonth: 100000, pagesPerBot: 10000, widgetMessagesPerBotPerMonth: 50000 },
    });
  });
});

describe('mergePlanLimits', () => {
  it('returns the defaults without overrides', () => {
    expect(mergePlanLimits(undefined)).toEqual(DEFAULT_PLAN_LIMITS);
    expect(mergePlanLimits({})).toEqual(DEFAULT_PLAN_LIMITS);
  });

  it('overrides single fields of single plans and keeps the rest', () => {
    const merged = mergePlanLimits({ scale: { botSlots: 20 }, growth: { messagesPerMonth: 0, pagesPerBot: 50 } });
    expect(merged.scale).toEqual({ botSlots: 20, messagesPerMonth: 25000, pagesPerBot: 2000, widgetMessagesPerBotPerMonth: 10000 });
    expect(merged.growth).toEqual({ botSlots: 3, messagesPerMonth: 0, pagesPerBot: 50, widgetMessagesPerBotPerMonth: 2000 });
    expect(merged.growth_trial).toEqual(DEFAULT_PLAN_LIMITS.growth_trial);
    expect(merged.enterprise).toEqual(DEFAULT_PLAN_LIMITS.enterprise);
  });

  it('never changes the defaults', () => {
    const before = JSON.parse(JSON.stringify(DEFAULT_PLAN_LIMITS));
    const merged = mergePlanLimits({ scale: { botSlots: 99 } });
    merged.growth.botSlots = 42;
    expect(DEFAULT_PLAN_LIMITS).toEqual(before);
    expect(mergePlanLimits(undefined).growth.botSlots).toBe(3);
  });

  it('ignores plans it does not know', () => {
    const merged = mergePlanLimits({ platinum: { botSlots: 1 } } as never);
    expect(Object.keys(merged).sort()).toEqual([...PLANS].sort());
  });
});

describe('entitlementsOf', () => {
  const limits = mergePlanLimits(undefined);

  it.each(PLANS.map((p) => [p]))('uses the defaults of the %s plan when the workspace has no overrides', (plan) => {
    const e = entitlementsOf(workspace({ plan }), limits);
    expect(e).toMatchObject({
      plan,
      botSlots: DEFAULT_PLAN_LIMITS[plan].botSlots,
      messagesPerMonth: DEFAULT_PLAN_LIMITS[plan].messagesPerMonth,
      pagesPerBot: DEFAULT_PLAN_LIMITS[plan].pagesPerBot,
      widgetMessagesPerBotPerMonth: DEFAULT_PLAN_LIMITS[plan].widgetMessagesPerBotPerMonth,
      tierSlots: { starter: 0, growth: 0, scale: 0 },
    });
  });

  it('prefers per-workspace overrides, including 0', () => {
    const e = entitlementsOf(workspace({ plan: 'scale', botSlots: 0, messagesPerMonth: 123, pagesPerBot: 0 }), limits);
    expect(e).toEqual({ plan: 'scale', botSlots: 0, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 123, pagesPerBot: 0, widgetMessagesPerBotPerMonth: 10000, webhooks: true });
  });

  it('uses the configured plan limits (PLAN_LIMITS) under the workspace overrides', () => {
    const custom = mergePlanLimits({ growth: { botSlots: 7, pagesPerBot: 9 } });
    expect(entitlementsOf(workspace({ plan: 'growth' }), custom)).toMatchObject({ botSlots: 7, pagesPerBot: 9, messagesPerMonth: 5000 });
    expect(entitlementsOf(workspace({ plan: 'growth', botSlots: 1 }), custom).botSlots).toBe(1);
  });

  it('takes the widget budget per bot from the plan limits (PLAN_LIMITS), apart from the workspace quota', () => {
    const custom = mergePlanLimits({ growth: { widgetMessagesPerBotPerMonth: 3 } });
    expect(entitlementsOf(workspace({ plan: 'growth', messagesPerMonth: 20 }), custom)).toMatchObject({ messagesPerMonth: 20, widgetMessagesPerBotPerMonth: 3 });
    expect(entitlementsOf(workspace({ plan: 'scale' }), custom).widgetMessagesPerBotPerMonth).toBe(10000);
  });

  it('fills missing tier slots with 0 and keeps given ones', () => {
    const e = entitlementsOf(workspace({ plan: 'enterprise', tierSlots: { growth: 2 } as never }), limits);
    expect(e.tierSlots).toEqual({ starter: 0, growth: 2, scale: 0 });
    expect(entitlementsOf(workspace({ tierSlots: null as never }), limits).tierSlots).toEqual({ starter: 0, growth: 0, scale: 0 });
  });

  it('derives webhooks from the plan and billing status', () => {
    expect(entitlementsOf(workspace({ plan: 'scale' }), limits).webhooks).toBe(true);
    expect(entitlementsOf(workspace({ plan: 'scale', billingStatus: 'past_due' }), limits).webhooks).toBe(false);
    expect(entitlementsOf(workspace({ plan: 'growth' }), limits).webhooks).toBe(false);
    expect(entitlementsOf(workspace({ plan: 'enterprise', enterpriseWebhooks: true }), limits).webhooks).toBe(true);
    expect(entitlementsOf(workspace({ plan: 'enterprise', enterpriseWebhooks: false }), limits).webhooks).toBe(false);
  });

  it('has exactly the members of the Entitlements contract', () => {
    expect(Object.keys(entitlementsOf(workspace(), limits)).sort()).toEqual(['botSlots', 'messagesPerMonth', 'pagesPerBot', 'plan', 'tierSlots', 'webhooks', 'widgetMessagesPerBotPerMonth']);
  });
});
