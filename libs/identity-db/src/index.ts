// Schema `identity` itself (the gateway owns it; the admin CLI acts for it): its entities, the
// admin operations, the database identity source and the LISTEN feed. The pure side is libs/identity.
export * from './api-token.entity';
export * from './db-identity-source';
export * from './identity-admin';
export * from './pg-identity-feed';
export * from './workspace.entity';

import { ApiTokenEntity } from './api-token.entity';
import { WorkspaceEntity } from './workspace.entity';
export const IDENTITY_ENTITIES = [WorkspaceEntity, ApiTokenEntity];
