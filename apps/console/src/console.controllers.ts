import type { Type } from '@nestjs/common';
import { SessionController } from './session/session.controller';

/** Every controller of the console's API (the OpenAPI document is generated from these). */
export const CONSOLE_CONTROLLERS: Type[] = [SessionController];
