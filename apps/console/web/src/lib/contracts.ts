// The contracts lib's framework-free constants (no class-validator in the browser bundle).
export { SCOPES, type Scope } from '@contracts/scopes';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@contracts/events';
