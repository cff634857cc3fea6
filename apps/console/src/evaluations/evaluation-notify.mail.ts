import type { SendPersonEmailRequest } from '@sa/contracts';

/** Questions quoted in the e-mail at most; the rest are counted. */
export const EVAL_MAIL_LISTED = 10;

function oneLine(text: string, max = 200): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').trim().slice(0, max);
}

const percent = (rate: number) => `${Math.round(rate * 1000) / 10}%`;

/**
 * The gate's e-mail (issue 33): a run of a bot's test set passed fewer cases than the bot's
 * threshold. Sent through the mail outbox as a person e-mail of kind `evaluation`.
 */
export function evaluationGateEmail(input: {
  publicUrl: string;
  to: string;
  workspaceId: string;
  workspaceName: string;
  chatbotId: string;
  botName: string;
  runId: string;
  passRate: number;
  minPassRate: number;
  newlyFailing: string[];
}): SendPersonEmailRequest {
  const link = `${input.publicUrl}/w/${encodeURIComponent(input.workspaceId)}/evaluations?bot=${encodeURIComponent(input.chatbotId)}&run=${encodeURIComponent(input.runId)}`;
  const listed = input.newlyFailing.slice(0, EVAL_MAIL_LISTED).map((q, i) => `${i + 1}. "${oneLine(q, 160)}"`);
  const more = input.newlyFailing.length - listed.length;
  const failing = listed.length
    ? `\nNewly failing since the previous run:\n${listed.join('\n')}\n${more > 0 ? `… and ${more} more.\n` : ''}`
    : '';
  return {
    kind: 'evaluation',
    to: input.to,
    workspace_id: input.workspaceId,
    subject: `Evaluation under its threshold: ${oneLine(input.botName, 80)} passed ${percent(input.passRate)} (${oneLine(input.workspaceName, 80)})`,
    body_text:
      `The latest evaluation run of the bot "${oneLine(input.botName, 80)}" in the workspace "${oneLine(input.workspaceName)}" passed ${percent(input.passRate)} of its test set, ` +
      `under its threshold of ${percent(input.minPassRate)}.\n${failing}\n` +
      `See each case's reply and the passages it was given in the console:\n${link}\n`,
  };
}
