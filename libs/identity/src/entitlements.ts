import type { Entitlements, Plan } from '@sa/contracts';
import { hasWebhooks } from './live-access';
import type { WorkspaceFacts } from './identity-source';

export interface PlanLimit {
  botSlots: number;
  messagesPerMonth: number;
  pagesPerBot: number;
  /**
   * Widget chat messages per bot per calendar month: anonymous widget traffic has its own budget
   * and never counts toward messagesPerMonth, so it cannot starve the workspace's API use.
   */
  widgetMessagesPerBotPerMonth: number;
}

/**
 * Defaults per plan. The spec gives no numbers (part 8 gaps): these are this implementation's
 * choice (docs/decisions/api.md, "Plans, quotas and slots"), overridable with PLAN_LIMITS and per workspace with the admin CLI.
 */
export const DEFAULT_PLAN_LIMITS: Record<Plan, PlanLimit> = {
  growth_trial: { botSlots: 3, messagesPerMonth: 5000, pagesPerBot: 500, widgetMessagesPerBotPerMonth: 500 },
  growth: { botSlots: 3, messagesPerMonth: 5000, pagesPerBot: 500, widgetMessagesPerBotPerMonth: 2000 },
  scale: { botSlots: 10, messagesPerMonth: 25000, pagesPerBot: 2000, widgetMessagesPerBotPerMonth: 10000 },
  // Enterprise bots take tier slots (tier_slots), not plan slots.
  enterprise: { botSlots: 0, messagesPerMonth: 100000, pagesPerBot: 10000, widgetMessagesPerBotPerMonth: 50000 },
};

export function mergePlanLimits(overrides: Partial<Record<Plan, Partial<PlanLimit>>> | undefined): Record<Plan, PlanLimit> {
  const out = { ...DEFAULT_PLAN_LIMITS };
  for (const plan of Object.keys(out) as Plan[]) out[plan] = { ...out[plan], ...(overrides?.[plan] ?? {}) };
  return out;
}

export function entitlementsOf(w: WorkspaceFacts, limits: Record<Plan, PlanLimit>): Entitlements {
  const plan = limits[w.plan];
  return {
    plan: w.plan,
    botSlots: w.botSlots ?? plan.botSlots,
    tierSlots: { starter: w.tierSlots?.starter ?? 0, growth: w.tierSlots?.growth ?? 0, scale: w.tierSlots?.scale ?? 0 },
    messagesPerMonth: w.messagesPerMonth ?? plan.messagesPerMonth,
    pagesPerBot: w.pagesPerBot ?? plan.pagesPerBot,
    widgetMessagesPerBotPerMonth: plan.widgetMessagesPerBotPerMonth,
    webhooks: hasWebhooks(w),
  };
}
