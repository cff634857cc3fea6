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
