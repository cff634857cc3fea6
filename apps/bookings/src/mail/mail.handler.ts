import { Controller } from '@nestjs/common';
import { CallerContext, EmailView, ListEmailsRequest, SendPersonEmailReply, SendPersonEmailRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { MailRepository } from './mail.repository';

/**
 * bookings.email.list: the e-mails of the caller's workspace, for operators (admin CLI `mail list`).
 * bookings.email.send: an e-mail to a person (invitation, password reset; the console asks),
 * sent by the mail worker like the visitor e-mails.
 */
@Controller()
export class MailHandler {
  constructor(private readonly mail: MailRepository) {}

  @RpcHandler('bookings.email.list')
  list(req: ListEmailsRequest, ctx: CallerContext): Promise<EmailView[]> {
    return this.mail.list(ctx.tenantId, req);
  }

  @RpcHandler('bookings.email.send')
  send(req: SendPersonEmailRequest): Promise<SendPersonEmailReply> {
    return this.mail.enqueuePersonEmail(req);
  }
}
