import { Controller } from '@nestjs/common';
import { CallerContext, EmailView, ListEmailsRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { MailRepository } from './mail.repository';

/** bookings.email.list: the visitor e-mails of the caller's workspace, for operators (admin CLI `mail list`). */
@Controller()
export class MailHandler {
  constructor(private readonly mail: MailRepository) {}

  @RpcHandler('bookings.email.list')
  list(req: ListEmailsRequest, ctx: CallerContext): Promise<EmailView[]> {
    return this.mail.list(ctx.tenantId, req);
  }
}
