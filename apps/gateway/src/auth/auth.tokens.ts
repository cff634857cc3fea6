export const RATE_LIMITER = Symbol('RATE_LIMITER');
export const PLAN_LIMITS = Symbol('PLAN_LIMITS');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
/** Requests without a valid token, per client address (EdgeGate). */
export const ANONYMOUS_RATE_LIMITER = Symbol('ANONYMOUS_RATE_LIMITER');
/** Issue 35: the providers' webhooks, per channel connection. */
export const CHANNEL_WEBHOOK_RATE_LIMITER = Symbol('CHANNEL_WEBHOOK_RATE_LIMITER');
