import { Controller } from '@nestjs/common';
import { HandoffNotifyReply, HandoffNotifyRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { HandoffMail } from './handoff-mail.service';

/**
 * console.handoff.notify (queue group `console`; the chat service's conversation.handoff consumer
 * sends it): the handoff is recorded, and the workspace's owners and admins are e-mailed through
 * the mail outbox (bookings.email.send), each at most once per window, with a digest of what waits
 * (HandoffMail).
 */
@Controller()
export class HandoffNotifyHandler {
  constructor(private readonly mail: HandoffMail) {}

  @RpcHandler('console.handoff.notify')
  async notify(req: HandoffNotifyRequest): Promise<HandoffNotifyReply> {
    return { queued: await this.mail.notify(req) };
  }
}
