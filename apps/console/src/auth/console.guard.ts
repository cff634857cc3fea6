import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { isRole } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { CsrfFailed, ForbiddenRole, NotSignedIn, PeopleAdmin, csrfTokenOf, roleAtLeast } from '@sa/people';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { CONSOLE_ROUTE_KEY, ConsoleAccess, ConsoleRequest } from './console-route.decorator';
import { UNSAFE_METHODS, consoleOrigins, csrfTokenMatches, originRefusal } from './csrf';
import { SessionCookie } from './session-cookie';
import { Workspaces } from './workspaces';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The global guard of the console's API. Order: a write's Origin (403 csrf_failed), the session
 * (401 not_signed_in), a write's X-CSRF-Token (403 csrf_failed), then on workspace routes the
 * membership (404 not_found), the role (403 forbidden_role) and the workspace's facts (404 when it
 * is gone). Validation (400) follows in the route's pipes.
 */
@Injectable()
export class ConsoleGuard implements CanActivate {
  private readonly origins: ReadonlySet<string>;

  constructor(
    private readonly reflector: Reflector,
    private readonly people: PeopleAdmin,
    private readonly workspaces: Workspaces,
    private readonly cookie: SessionCookie,
    @Inject(CONSOLE_CONFIG) config: ConsoleConfig,
  ) {
    this.origins = consoleOrigins(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const access = this.reflector.getAllAndOverride<ConsoleAccess | undefined>(CONSOLE_ROUTE_KEY, [context.getHandler(), context.getClass()]);
    if (!access) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares no @ConsoleRoute`);
    const req = context.switchToHttp().getRequest<FastifyRequest & ConsoleRequest>();
    const unsafe = UNSAFE_METHODS.has(req.method);
    if (unsafe) {
      const refusal = originRefusal(req.headers, this.origins);
      if (refusal) throw new CsrfFailed(refusal);
    }
    if (access === 'public') return true;

    const secret = this.cookie.read(req);
    const resolved = await this.people.resolveSession(secret);
    if (!resolved || !secret) throw new NotSignedIn();
    if (unsafe && !csrfTokenMatches(req.headers, csrfTokenOf(secret))) throw new CsrfFailed('the X-CSRF-Token header is missing or wrong');
    const { person, session } = resolved;
    req.consoleSessionSecret = secret;
    req.consoleSessionExpiresAt = resolved.expiresAt;
    req.consoleCaller = { person: { id: person.id, email: person.email, display_name: person.display_name }, sessionId: session.id };
    if (access === 'session') return true;
    if (!isRole(access)) throw new Error(`@ConsoleRoute('${String(access)}') is not public, session or a role`);

    const workspaceId = (req.params as Record<string, string | undefined>)['workspaceId'];
    if (!workspaceId) throw new Error(`@ConsoleRoute('${access}') on a route without :workspaceId`);
    if (!UUID.test(workspaceId)) throw new NotFound('Workspace');
    const role = await this.people.roleIn(person.id, workspaceId);
    if (!role) throw new NotFound('Workspace');
    if (!roleAtLeast(role, access)) throw new ForbiddenRole();
    const facts = await this.workspaces.facts(workspaceId);
    if (!facts) throw new NotFound('Workspace');
    req.consoleCaller.workspace = { id: facts.id, name: facts.name, role };
    req.consoleCaller.ctx = this.workspaces.callerContext(facts, role, String(req.id));
    return true;
  }
}
