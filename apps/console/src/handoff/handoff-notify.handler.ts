import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import { HandoffNotifyReply, HandoffNotifyRequest } from '@sa/contracts';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { PeopleAdmin } from '@sa/people';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from '../config/console.config';
import { handoffEmail } from '../mail/person-mail';

/**
 * console.handoff.notify (queue group `console`; the chat service's conversation.handoff consumer
 * sends it): every owner and admin of the workspace gets an e-mail through the mail outbox
 * (bookings.email.send) with a link to the console's Handoff page.
 */
@Controller()
export class HandoffNotifyHandler {
  constructor(
    private readonly people: PeopleAdmin,
    private readonly rpc: RpcClient,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {}

  @RpcHandler('console.handoff.notify')
  async notify(req: HandoffNotifyRequest): Promise<HandoffNotifyReply> {
    const recipients = (await this.people.listMembers(req.workspaceId)).filter((m) => m.role === 'owner' || m.role === 'admin');
    const { workspace } = await this.rpc.send('identity.workspace.get', { workspaceId: req.workspaceId });
    for (const person of recipients) {
      await this.rpc.send(
        'bookings.email.send',
        handoffEmail({ publicUrl: this.config.publicUrl, to: person.email, workspaceId: req.workspaceId, workspaceName: workspace?.name ?? 'your workspace', kind: req.kind, question: req.question ?? null }),
      );
    }
    this.logger.info({ workspace_id: req.workspaceId, recipients: recipients.length }, 'handoff: owners and admins notified');
    return { queued: recipients.length };
  }
}
