import { SetMetadata, applyDecorators } from '@nestjs/common';
import type { Scope } from '@sa/contracts';

export const SCOPE_KEY = 'sa:required-scope';
export const PUBLIC_KEY = 'sa:public';

/** The route needs a live, unexpired token with this scope (spec part 5). */
export const RequireScope = (scope: Scope) => applyDecorators(SetMetadata(SCOPE_KEY, scope));

/** The route needs no token (GET /v1/openapi.json, health probes). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
