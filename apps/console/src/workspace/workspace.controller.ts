import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ENTERPRISE_TIERS, WorkspaceParams, WorkspaceView } from '@sa/contracts';
import { dto } from '@sa/edge';
import { NotFound } from '@sa/errors';
import { liveAccessState } from '@sa/identity';
import { RpcClient } from '@sa/messaging';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { Workspaces } from '../auth/workspaces';
import { ApiConsoleErrors, ApiView } from '../openapi/console-responses';

/**
 * The workspace page (read-only; billing is out of scope): plan, live access (why the API answers
 * 402 api_locked, from libs/identity's liveAccessState) and usage against the limits of the
 * caller context's entitlements, counted by the services that enforce them (chat.usage.get,
 * knowledge.usage.get, bots.bot.list).
 */
@ApiTags('Workspace')
@Controller('api/workspaces/:workspaceId')
export class WorkspaceController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly workspaces: Workspaces,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getWorkspace', summary: 'The workspace', description: 'Plan, live-access state (402 `api_locked` explained) and usage against the quotas: messages this month, bot slots, pages per bot.' })
  @ApiView(200, 'The workspace.', WorkspaceView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async get(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<WorkspaceView> {
    const { workspace, ctx } = workspaceOf(caller);
    const [facts, messages, pages, bots] = await Promise.all([
      this.workspaces.facts(workspace.id),
      this.rpc.send('chat.usage.get', {}, ctx),
      this.rpc.send('knowledge.usage.get', {}, ctx),
      this.rpc.send('bots.bot.list', {}, ctx),
    ]);
    if (!facts) throw new NotFound('Workspace');
    const e = ctx.entitlements;
    const pagesOf = new Map(pages.bots.map((b) => [b.bot_id, b.pages]));
    // Enterprise bots take tier slots (the contract's), every other plan's the plan's slots.
    const slotLimit = e.plan === 'enterprise' ? ENTERPRISE_TIERS.reduce((n, t) => n + (e.tierSlots[t] ?? 0), 0) : e.botSlots;
    return {
      id: workspace.id,
      name: workspace.name,
      role: workspace.role,
      plan: facts.plan,
      billing_status: facts.billingStatus,
      trial_ends_at: facts.trialEndsAt ? facts.trialEndsAt.toISOString() : null,
      live_access: liveAccessState(facts),
      usage: {
        messages_this_month: { used: messages.messages_this_month, limit: e.messagesPerMonth },
        bot_slots: { used: bots.filter((b) => b.slot_kind === 'plan').length, limit: slotLimit },
        pages_per_bot: { limit: e.pagesPerBot, bots: bots.map((b) => ({ bot_id: b.id, name: b.name, pages: pagesOf.get(b.id) ?? 0 })) },
      },
    };
  }
}
