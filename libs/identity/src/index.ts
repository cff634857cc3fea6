// The pure side of identity (no TypeORM, no PostgreSQL): what every process that checks tokens
// and workspaces needs. The gateway's tables and the admin side are libs/identity-db, so the MCP
// server, which has no database, does not load TypeORM at start (docs/decisions/operations.md).
export * from './entitlements';
export * from './identity-events';
export * from './identity-fixtures';
export * from './identity-source';
export * from './live-access';
export * from './token-secret';
export * from './token-verifier';
