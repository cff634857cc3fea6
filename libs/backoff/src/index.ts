export { backoffMs, type BackoffOptions } from './backoff';
