// Webhook registrations, their signing secrets and their delivery log (schema `webhooks`, owned
// by the webhook-dispatcher app): used by the dispatcher and by the admin CLI.
export * from './channels';
export * from './seal-plaintext';
export * from './secret-key';
export * from './signing-secret';
export * from './webhook-admin';
export * from './webhook-url';
