export * from './api-token.entity';
export * from './entitlements';
export * from './identity-admin';
export * from './identity-events';
export * from './identity-fixtures';
export * from './identity-source';
export * from './live-access';
export * from './token-secret';
export * from './token-verifier';
export * from './workspace.entity';

import { ApiTokenEntity } from './api-token.entity';
import { WorkspaceEntity } from './workspace.entity';
export const IDENTITY_ENTITIES = [WorkspaceEntity, ApiTokenEntity];
