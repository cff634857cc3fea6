import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { SessionView } from '@sa/contracts';
import { PeopleAdmin, PersonRow, csrfTokenOf } from '@sa/people';
import { SessionCookie } from '../auth/session-cookie';
import { Workspaces } from '../auth/workspaces';

/** Starts sessions (sign-in, accepting an invitation) and describes them (SessionView). */
@Injectable()
export class Sessions {
  constructor(
    private readonly people: PeopleAdmin,
    private readonly workspaces: Workspaces,
    private readonly cookie: SessionCookie,
  ) {}

  /**
   * A new session for the person (a new id at every sign-in: rotation), the cookie set, and the
   * session the request came with, if any, ended.
   */
  async start(person: PersonRow, reply: FastifyReply, previousSecret: string | undefined): Promise<SessionView> {
    if (previousSecret) {
      const previous = await this.people.resolveSession(previousSecret);
      if (previous) await this.people.endSession(previous.session.id);
    }
    const { secret, session, expiresAt } = await this.people.createSession(person.id);
    this.cookie.set(reply, secret, Math.max(1, Math.floor((session.absolute_expires_at.getTime() - Date.now()) / 1000)));
    return this.view(person, secret, expiresAt);
  }

  async view(person: Pick<PersonRow, 'id' | 'email' | 'display_name'>, secret: string, expiresAt: Date): Promise<SessionView> {
    const memberships = await this.people.workspacesOf(person.id);
    const names = await this.workspaces.names(memberships.map((m) => m.workspace_id));
    return {
      person: { id: person.id, email: person.email, display_name: person.display_name },
      workspaces: memberships.filter((m) => names.has(m.workspace_id)).map((m) => ({ id: m.workspace_id, name: names.get(m.workspace_id)!, role: m.role })),
      csrf_token: csrfTokenOf(secret),
      expires_at: expiresAt.toISOString(),
    };
  }
}
