/** The service's pino logger. */
export const EVALUATIONS_LOGGER = Symbol('EVALUATIONS_LOGGER');
/** The judge's model builder (judge/judge.ts). */
export const JUDGE = Symbol('JUDGE');
