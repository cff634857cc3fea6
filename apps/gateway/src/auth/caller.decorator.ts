import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { CallerContext } from '@sa/contracts';

export interface AuthenticatedRequest {
  caller?: CallerContext;
}

/** The verified caller of this request, set by the AuthGuard. */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): CallerContext => {
  const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new Error('@Caller() used on a route without @RequireScope');
  return caller;
});
