/*
 * How every console route declares who may call it (the ConsoleGuard enforces it; a route without
 * a declaration is refused: fail closed):
 *
 *   @ConsoleRoute('public')   no session (sign-in, password reset, invitation links). Unsafe
 *                             methods still need the console's own Origin (403 csrf_failed).
 *   @ConsoleRoute('session')  a signed-in person (401 not_signed_in).
 *   @ConsoleRoute(role)       a workspace route under /api/workspaces/:workspaceId: the person must
 *                             be a member (else 404 not_found, never revealing the workspace) with
 *                             at least this role: 'member' to read, 'admin' to manage tokens,
 *                             webhooks and members, 'owner' for owner-only actions (else 403
 *                             forbidden_role). The workspace's facts come from identity.workspace.get.
 *
 * Every POST, PATCH, PUT and DELETE under /api needs the console's own Origin (or, without one,
 * Sec-Fetch-Site: same-origin) and, with a session, `X-CSRF-Token` equal to the session's token
 * (SessionView.csrf_token): else 403 csrf_failed.
 *
 *   @ConsoleCaller() caller: ConsoleCallerInfo
 *     { person: {id, email, display_name}, sessionId, workspace?: {id, name, role}, ctx?: CallerContext }
 *   `ctx` (workspace routes) is the CallerContext to send over NATS with rpc.send(subject, req, ctx):
 *   tenantId = the workspace, tokenId null, scopes by role (owner/admin: all; member: the :read
 *   ones), botIds null, entitlements of the workspace's plan, requestId of the request.
 *
 *   ConsoleAudit.record(caller, action, target_kind, target_id, details) after each successful
 *   change (action like 'token.created'; details never hold a secret).
 */
import { SetMetadata, createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { CallerContext, Role } from '@sa/contracts';

export type ConsoleAccess = 'public' | 'session' | Role;

export const CONSOLE_ROUTE_KEY = 'sa:console-route';

/** Who may call the route: see the comment at the top of this file. */
export const ConsoleRoute = (access: ConsoleAccess) => SetMetadata(CONSOLE_ROUTE_KEY, access);

export interface ConsoleCallerInfo {
  person: { id: string; email: string; display_name: string };
  /** The session's row id (never its secret). */
  sessionId: string;
  /** Workspace routes only: the workspace and the person's role in it. */
  workspace?: { id: string; name: string; role: Role };
  /** Workspace routes only: the caller context to send over NATS. */
  ctx?: CallerContext;
}

export interface ConsoleRequest {
  consoleCaller?: ConsoleCallerInfo;
  /** The session cookie's secret, for the routes that derive the CSRF token (GET /api/session). */
  consoleSessionSecret?: string;
  /** When the session ends unless used before. */
  consoleSessionExpiresAt?: Date;
}

/** The signed-in caller, set by the ConsoleGuard on 'session' and workspace routes. */
export const ConsoleCaller = createParamDecorator((_: unknown, context: ExecutionContext): ConsoleCallerInfo => {
  const caller = context.switchToHttp().getRequest<ConsoleRequest>().consoleCaller;
  if (!caller) throw new Error("@ConsoleCaller() used on a route that is @ConsoleRoute('public')");
  return caller;
});

/** The caller of a workspace route, with its workspace and ctx (present there by construction). */
export type WorkspaceCaller = Required<ConsoleCallerInfo>;

export function workspaceOf(caller: ConsoleCallerInfo): WorkspaceCaller {
  if (!caller.workspace || !caller.ctx) throw new Error('not a workspace route: declare @ConsoleRoute(role) under /api/workspaces/:workspaceId');
  return caller as WorkspaceCaller;
}
