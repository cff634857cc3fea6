import { Injectable } from '@nestjs/common';
import { PeopleAdmin } from '@sa/people';
import type { ConsoleCallerInfo } from '../auth/console-route.decorator';

/**
 * The audit log as the console's controllers write it: after each successful change,
 * `record(caller, 'token.created', 'token', id, { name })`. The actor is the signed-in person;
 * the workspace the route's. Details are facts, never secrets (secret-like keys are dropped).
 */
@Injectable()
export class ConsoleAudit {
  constructor(private readonly people: PeopleAdmin) {}

  async record(caller: ConsoleCallerInfo, action: string, targetKind: string, targetId: string | null, details: Record<string, unknown> = {}): Promise<void> {
    await this.people.audit.record({
      workspaceId: caller.workspace?.id ?? null,
      actor: { kind: 'person', id: caller.person.id, label: caller.person.email },
      action,
      targetKind,
      targetId,
      details,
    });
  }
}
