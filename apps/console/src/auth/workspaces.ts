import { Inject, Injectable } from '@nestjs/common';
import { CallerContext, Role, SCOPES, Scope } from '@sa/contracts';
import { WorkspaceFacts, entitlementsOf, mergePlanLimits, workspaceFactsFromView } from '@sa/identity';
import { RpcClient } from '@sa/messaging';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { roleAtLeast } from '@sa/people';

/** What a role may do through the services: owners and admins every scope, members the `:read` ones. */
export function scopesOfRole(role: Role): Scope[] {
  return roleAtLeast(role, 'admin') ? [...SCOPES] : SCOPES.filter((s) => s.endsWith(':read'));
}

/**
 * Workspaces as the console sees them: their facts are the gateway's (schema `identity`), asked
 * over NATS (identity.workspace.get); the caller context of a person acting in one.
 */
@Injectable()
export class Workspaces {
  private readonly limits: ReturnType<typeof mergePlanLimits>;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(CONSOLE_CONFIG) config: ConsoleConfig,
  ) {
    this.limits = mergePlanLimits(config.planLimits);
  }

  async facts(workspaceId: string): Promise<WorkspaceFacts | null> {
    const reply = await this.rpc.send('identity.workspace.get', { workspaceId });
    return reply.workspace ? workspaceFactsFromView(reply.workspace) : null;
  }

  /** Names of several workspaces (those that no longer exist are left out). */
  async names(ids: string[]): Promise<Map<string, string>> {
    const facts = await Promise.all(ids.map((id) => this.facts(id)));
    return new Map(facts.filter((f): f is WorkspaceFacts => f !== null).map((f) => [f.id, f.name]));
  }

  callerContext(facts: WorkspaceFacts, role: Role, requestId: string): CallerContext {
    return { tenantId: facts.id, tokenId: null, scopes: scopesOfRole(role), botIds: null, requestId, entitlements: entitlementsOf(facts, this.limits) };
  }

  planLimits() {
    return this.limits;
  }
}
