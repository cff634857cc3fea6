export const PLANS = ['growth_trial', 'growth', 'scale', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const BILLING_STATUSES = ['active', 'past_due', 'canceled'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

/** Enterprise contract tiers (spec part 4, POST /bots enterprise_plan_tier). */
export const ENTERPRISE_TIERS = ['starter', 'growth', 'scale'] as const;
export type EnterpriseTier = (typeof ENTERPRISE_TIERS)[number];
export type TierSlots = Record<EnterpriseTier, number>;

export const SLOT_KINDS = ['plan', 'addon', 'vendor'] as const;
export type SlotKind = (typeof SLOT_KINDS)[number];
