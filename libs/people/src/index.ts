export * from './audit-log';
export * from './errors';
export * from './passwords';
export * from './people-admin';
export * from './roles';
export * from './secrets';
export * from './setup-code';
