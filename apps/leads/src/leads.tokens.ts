export const LEADS_LOGGER = Symbol('LEADS_LOGGER');
