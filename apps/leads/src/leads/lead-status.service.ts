import { Injectable } from '@nestjs/common';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { CallerContext, LeadStatusChangeView, LeadView, UpdateLeadStatusRequest } from '@sa/contracts';
import { DomainError, NotFound } from '@sa/errors';
import { LeadRow, LeadsRepository, toLeadView } from './leads.repository';

/**
 * A lead as the console reads and moves it (issue 19): one lead, its status history, and status
 * changes recorded with who and when. A lead of another workspace is not found; a bot-restricted
 * caller gets 403 for another bot's lead (spec part 5).
 */
@Injectable()
export class LeadStatusService {
  constructor(private readonly leads: LeadsRepository) {}

  async get(ctx: CallerContext, leadId: string): Promise<LeadView> {
    return toLeadView(this.visible(ctx, await this.leads.get(this.leadsDs(), ctx.tenantId, leadId)));
  }

  async history(ctx: CallerContext, leadId: string): Promise<LeadStatusChangeView[]> {
    this.visible(ctx, await this.leads.get(this.leadsDs(), ctx.tenantId, leadId));
    return this.leads.history(ctx.tenantId, leadId);
  }

  /** The new status and its history row commit together; the same status again is 409 conflict. */
  async update(ctx: CallerContext, req: UpdateLeadStatusRequest): Promise<LeadView> {
    const row = await this.leads.transaction(async (m) => {
      const lead = this.visible(ctx, await this.leads.get(m, ctx.tenantId, req.leadId, true));
      if (lead.status === req.status) throw new DomainError('conflict', `The lead is already ${req.status}`, { reason: 'same_status' });
      const note = req.note?.trim() ? req.note.trim() : null;
      return this.leads.changeStatus(m, lead.status, { tenantId: ctx.tenantId, leadId: req.leadId, status: req.status, note, actor: req.actor });
    });
    return toLeadView(row);
  }

  private visible(ctx: CallerContext, lead: LeadRow | undefined): LeadRow {
    if (!lead) throw new NotFound('Lead');
    enforceBotAccess(ctx, BotAccess.OfResource, lead.chatbot_id, { what: 'that lead' });
    return lead;
  }

  private leadsDs() {
    return this.leads.dataSource();
  }
}
