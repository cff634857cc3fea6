import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import { EvalNotifyReply, EvalNotifyRequest } from '@sa/contracts';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { PeopleAdmin } from '@sa/people';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from '../config/console.config';
import { evaluationGateEmail } from './evaluation-notify.mail';

/**
 * console.evaluation.notify (queue group `console`; the evaluations service sends it once per run
 * under its gate, and again until it is answered): the workspace's owners and admins are e-mailed
 * through the mail outbox (bookings.email.send). Members are not.
 */
@Controller()
export class EvaluationNotifyHandler {
  constructor(
    private readonly people: PeopleAdmin,
    private readonly rpc: RpcClient,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {}

  @RpcHandler('console.evaluation.notify')
  async notify(req: EvalNotifyRequest): Promise<EvalNotifyReply> {
    const recipients = (await this.people.listMembers(req.workspaceId)).filter((m) => m.role === 'owner' || m.role === 'admin');
    if (!recipients.length) return { sent: 0 };
    const workspaceName = (await this.rpc.send('identity.workspace.get', { workspaceId: req.workspaceId })).workspace?.name ?? 'your workspace';
    for (const person of recipients) {
      await this.rpc.send(
        'bookings.email.send',
        evaluationGateEmail({ publicUrl: this.config.publicUrl, to: person.email, workspaceId: req.workspaceId, workspaceName, chatbotId: req.chatbotId, botName: req.botName, runId: req.runId, passRate: req.passRate, minPassRate: req.minPassRate, newlyFailing: req.newlyFailing }),
      );
    }
    this.logger.info({ workspace_id: req.workspaceId, chatbot_id: req.chatbotId, run_id: req.runId, recipients: recipients.length }, 'evaluation under its gate: owners and admins e-mailed');
    return { sent: recipients.length };
  }
}
