import { Inject, Injectable } from '@nestjs/common';
import type { CallerContext } from '@sa/contracts';
import { PlanLimit, entitlementsOf, hasLiveApiAccess, mergePlanLimits, workspaceFactsFromView } from '@sa/identity';
import { RpcClient } from '@sa/messaging';
import { CHANNELS_CONFIG, ChannelsConfig } from '../config/channels.config';

/** How long a workspace's facts are reused (a plan change reaches channel turns within this). */
const CACHE_MS = 30_000;

/**
 * The caller context of a channel's turns: the workspace's own, as the gateway makes it for a
 * token (its plan's entitlements: a channel's turns count against the workspace's message quota),
 * with every bot and no token. Null when the workspace is gone or has no live access (a lapsed
 * trial, a suspended account): its channels then answer nothing.
 */
@Injectable()
export class WorkspaceContexts {
  private readonly limits: Record<string, PlanLimit>;
  private readonly cache = new Map<string, { at: number; ctx: CallerContext | null }>();

  constructor(
    private readonly rpc: RpcClient,
    @Inject(CHANNELS_CONFIG) config: ChannelsConfig,
  ) {
    this.limits = mergePlanLimits(config.planLimits);
  }

  async for(tenantId: string, requestId: string): Promise<CallerContext | null> {
    const hit = this.cache.get(tenantId);
    const base = hit && Date.now() - hit.at < CACHE_MS ? hit.ctx : await this.load(tenantId);
    return base ? { ...base, requestId: requestId.slice(0, 128) } : null;
  }

  private async load(tenantId: string): Promise<CallerContext | null> {
    const reply = await this.rpc.send('identity.workspace.get', { workspaceId: tenantId });
    const facts = reply.workspace ? workspaceFactsFromView(reply.workspace) : null;
    const ctx: CallerContext | null =
      facts && hasLiveApiAccess(facts) ? { tenantId, tokenId: null, scopes: [], botIds: null, requestId: '', entitlements: entitlementsOf(facts, this.limits as Parameters<typeof entitlementsOf>[1]) } : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(tenantId, { at: Date.now(), ctx });
    return ctx;
  }
}
