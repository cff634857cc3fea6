// Secrets kept encrypted at rest (AES-256-GCM under WEBHOOK_SECRET_KEY or the local key file):
// webhook signing secrets, widget identity secrets and the keys of model connections.
export * from './secret-key';
export * from './signing-secret';
