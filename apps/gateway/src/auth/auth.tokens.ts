export const RATE_LIMITER = Symbol('RATE_LIMITER');
export const PLAN_LIMITS = Symbol('PLAN_LIMITS');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
