import { Controller, Inject } from '@nestjs/common';
import { BotAccess, enforceBotAccess, visibleBots } from '@sa/bot-access';
import { CallerContext, ConsoleLeadsRequest, ConversationalLeadRequest, IdentifyRequest, LeadFormRequest, LeadIdRequest, LeadStatusChangeView, LeadView, UpdateLeadStatusRequest } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { LEADS_CONFIG, LeadsConfig } from '../config/leads.config';
import { LeadStatusService } from './lead-status.service';
import { LeadsRepository } from './leads.repository';
import { VisitorLeadsService } from './visitor-leads.service';

/**
 * leads.lead.list (GET /v1/leads): at most 500 leads, newest first. A token restricted to bots
 * must name an allowed chatbotId (403); a chatbotId must be a bot of the workspace (404).
 * The console (issue 19) adds filters (band, minScore, status, channel, sessionId) and keyset
 * paging (beforeCreatedAt + beforeId) to leads.lead.list, and reads and moves one lead:
 * leads.lead.get, leads.lead.history, leads.lead.update-status.
 * leads.visitor.identify and leads.lead.capture: the widget's identify call and lead form.
 * leads.lead.capture-conversational (issue 34): the bot's built-in action capture_contact, sent by
 * chat for a conversation's session; the bot must be one of the workspace's (404).
 */
@Controller()
export class LeadsHandler {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly rpc: RpcClient,
    private readonly visitors: VisitorLeadsService,
    private readonly status: LeadStatusService,
    @Inject(LEADS_CONFIG) private readonly config: LeadsConfig,
  ) {}

  @RpcHandler('leads.lead.list')
  async list(req: ConsoleLeadsRequest, ctx: CallerContext): Promise<LeadView[]> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    if (req.chatbotId) {
      const { found } = await this.rpc.send('bots.bot.check', { ids: [req.chatbotId] }, ctx);
      if (!found.includes(req.chatbotId)) throw new NotFound('Bot');
    }
    return this.leads.list({
      tenantId: ctx.tenantId,
      chatbotId: req.chatbotId,
      botIds: visibleBots(ctx),
      limit: Math.min(req.limit ?? this.config.maxListed, this.config.maxListed),
      band: req.band,
      minScore: req.minScore,
      status: req.status,
      channel: req.channel,
      sessionId: req.sessionId,
      before: req.beforeCreatedAt && req.beforeId ? { createdAt: req.beforeCreatedAt, id: req.beforeId } : undefined,
    });
  }

  @RpcHandler('leads.lead.get')
  get(req: LeadIdRequest, ctx: CallerContext): Promise<LeadView> {
    return this.status.get(ctx, req.leadId);
  }

  @RpcHandler('leads.lead.history')
  history(req: LeadIdRequest, ctx: CallerContext): Promise<LeadStatusChangeView[]> {
    return this.status.history(ctx, req.leadId);
  }

  @RpcHandler('leads.lead.update-status')
  updateStatus(req: UpdateLeadStatusRequest, ctx: CallerContext): Promise<LeadView> {
    return this.status.update(ctx, req);
  }

  @RpcHandler('leads.visitor.identify')
  identify(req: IdentifyRequest, ctx: CallerContext): Promise<{ session_id: string; lead_id: string | null }> {
    return this.visitors.identify(req, ctx);
  }

  @RpcHandler('leads.lead.capture')
  capture(req: LeadFormRequest, ctx: CallerContext): Promise<LeadView> {
    return this.visitors.capture(req, ctx);
  }

  @RpcHandler('leads.lead.capture-conversational')
  async captureConversational(req: ConversationalLeadRequest, ctx: CallerContext): Promise<LeadView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    const { found } = await this.rpc.send('bots.bot.check', { ids: [req.chatbotId] }, ctx);
    if (!found.includes(req.chatbotId)) throw new NotFound('Bot');
    return this.visitors.captureConversational(req, ctx);
  }
}
