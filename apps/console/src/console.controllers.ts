import type { Type } from '@nestjs/common';
import { BotsController } from './bots/bots.controller';
import { SessionController } from './session/session.controller';
import { TokensController } from './tokens/tokens.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WorkspaceController } from './workspace/workspace.controller';

/** Every controller of the console's API (the OpenAPI document is generated from these). */
export const CONSOLE_CONTROLLERS: Type[] = [SessionController, WorkspaceController, BotsController, TokensController, WebhooksController];
