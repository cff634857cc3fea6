// Webhook registrations, their signing secrets and their delivery log (schema `webhooks`, owned
// by the webhook-dispatcher app): used by the dispatcher and by the admin CLI.
export * from './channels';
export * from './seal-plaintext';
// The sealing (SecretBox, WEBHOOK_SECRET_KEY) is @sa/secret-box's, shared with the services that keep other secrets.
export * from '@sa/secret-box';
export * from './webhook-admin';
export * from './webhook-url';
