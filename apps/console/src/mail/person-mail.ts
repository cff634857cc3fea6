import type { Role, SendPersonEmailRequest } from '@sa/contracts';

/**
 * The e-mails people receive from the console. The single-use link carries its token in the URL
 * fragment (`#token=`), which browsers never send to a server, so it reaches no access log.
 */
export function invitationEmail(input: { publicUrl: string; to: string; token: string; workspaceId: string; workspaceName: string; role: Role; invitedBy: string; expiresAt: string }): SendPersonEmailRequest {
  const link = `${input.publicUrl}/accept-invitation#token=${input.token}`;
  return {
    kind: 'invitation',
    to: input.to,
    workspace_id: input.workspaceId,
    subject: `You are invited to ${oneLine(input.workspaceName)}`,
    body_text:
      `${input.invitedBy} invited you to the workspace "${oneLine(input.workspaceName)}" as ${input.role}.\n\n` +
      `Accept the invitation (the link works once, until ${input.expiresAt}):\n${link}\n\n` +
      `If you did not expect this, ignore this e-mail.\n`,
  };
}

export function passwordResetEmail(input: { publicUrl: string; to: string; token: string; ttlSeconds: number }): SendPersonEmailRequest {
  const link = `${input.publicUrl}/reset-password#token=${input.token}`;
  const minutes = Math.round(input.ttlSeconds / 60);
  return {
    kind: 'password_reset',
    to: input.to,
    workspace_id: null,
    subject: 'Reset your console password',
    body_text:
      `Someone (hopefully you) asked to reset the password of ${input.to}.\n\n` +
      `Choose a new password here (the link works once, for ${minutes} minutes):\n${link}\n\n` +
      `Setting a new password signs you out everywhere. If you did not ask for this, ignore this e-mail: your password stays as it is.\n`,
  };
}

/** A workspace name inside a subject or a quoted line: no line breaks (header injection), trimmed. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').trim().slice(0, 200);
}

/**
 * The e-mail owners and admins get when a conversation asks for a person (issue 19). The visitor's
 * question is quoted on one line and shortened; the link leads to the console's Handoff page.
 */
export function handoffEmail(input: { publicUrl: string; to: string; workspaceId: string; workspaceName: string; kind: 'explicit' | 'detected'; question: string | null }): SendPersonEmailRequest {
  const link = `${input.publicUrl}/w/${encodeURIComponent(input.workspaceId)}/handoff`;
  const why = input.kind === 'explicit' ? 'A visitor asked to talk to a person' : 'The bot noticed that a visitor needs a person';
  const question = input.question ? `\nTheir message: "${oneLine(input.question)}"\n` : '';
  return {
    kind: 'handoff',
    to: input.to,
    workspace_id: input.workspaceId,
    subject: `A visitor asks for a person (${oneLine(input.workspaceName)})`,
    body_text: `${why} in the workspace "${oneLine(input.workspaceName)}".\n${question}\nTake the conversation over in the console:\n${link}\n`,
  };
}

/** At most this many waiting conversations are quoted in one handoff digest; the rest are counted. */
export const HANDOFF_DIGEST_LISTED = 20;

/**
 * The handoff digest (issue 30): one e-mail per person per window, listing the conversations that
 * asked for a person since their last one. With one conversation it is the single handoff e-mail.
 */
export function handoffDigestEmail(input: {
  publicUrl: string;
  to: string;
  workspaceId: string;
  workspaceName: string;
  items: { kind: 'explicit' | 'detected'; question: string | null }[];
  total: number;
}): SendPersonEmailRequest {
  const [first] = input.items;
  if (input.total === 1 && first) return handoffEmail({ ...input, kind: first.kind, question: first.question });
  const link = `${input.publicUrl}/w/${encodeURIComponent(input.workspaceId)}/handoff`;
  const lines = input.items.map((item, i) => {
    const why = item.kind === 'explicit' ? 'asked for a person' : 'the bot noticed they need a person';
    return `${i + 1}. ${item.question ? `"${oneLine(item.question).slice(0, 160)}"` : '(no message)'} (${why})`;
  });
  const more = input.total - input.items.length;
  return {
    kind: 'handoff',
    to: input.to,
    workspace_id: input.workspaceId,
    subject: `${input.total} visitors ask for a person (${oneLine(input.workspaceName)})`,
    body_text:
      `${input.total} conversations in the workspace "${oneLine(input.workspaceName)}" asked for a person since our last e-mail:\n\n` +
      `${lines.join('\n')}\n${more > 0 ? `… and ${more} more.\n` : ''}\n` +
      `Take them over in the console:\n${link}\n\n` +
      `You get at most one such e-mail every few minutes; the Handoff page always shows every waiting conversation.\n`,
  };
}
