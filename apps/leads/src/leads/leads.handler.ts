import { Controller, Inject } from '@nestjs/common';
import { BotAccess, enforceBotAccess, visibleBots } from '@sa/bot-access';
import { CallerContext, IdentifyRequest, LeadFormRequest, LeadView, ListLeadsRequest } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { LEADS_CONFIG, LeadsConfig } from '../config/leads.config';
import { LeadsRepository } from './leads.repository';
import { VisitorLeadsService } from './visitor-leads.service';

/**
 * leads.lead.list (GET /v1/leads): at most 500 leads, newest first. A token restricted to bots
 * must name an allowed chatbotId (403); a chatbotId must be a bot of the workspace (404).
 * leads.visitor.identify and leads.lead.capture: the widget's identify call and lead form.
 */
@Controller()
export class LeadsHandler {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly rpc: RpcClient,
    private readonly visitors: VisitorLeadsService,
    @Inject(LEADS_CONFIG) private readonly config: LeadsConfig,
  ) {}

  @RpcHandler('leads.lead.list')
  async list(req: ListLeadsRequest, ctx: CallerContext): Promise<LeadView[]> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    if (req.chatbotId) {
      const { found } = await this.rpc.send('bots.bot.check', { ids: [req.chatbotId] }, ctx);
      if (!found.includes(req.chatbotId)) throw new NotFound('Bot');
    }
    return this.leads.list({ tenantId: ctx.tenantId, chatbotId: req.chatbotId, botIds: visibleBots(ctx), limit: this.config.maxListed });
  }

  @RpcHandler('leads.visitor.identify')
  identify(req: IdentifyRequest, ctx: CallerContext): Promise<{ session_id: string; lead_id: string | null }> {
    return this.visitors.identify(req, ctx);
  }

  @RpcHandler('leads.lead.capture')
  capture(req: LeadFormRequest, ctx: CallerContext): Promise<LeadView> {
    return this.visitors.capture(req, ctx);
  }
}
