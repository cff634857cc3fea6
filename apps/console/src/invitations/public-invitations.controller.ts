import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AcceptInvitationRequest, InvitationPreviewView, InvitationTokenParams, SessionView } from '@sa/contracts';
import { dto } from '@sa/edge';
import { NotFound } from '@sa/errors';
import { InvalidCredentials, PeopleAdmin } from '@sa/people';
import { ConsoleRoute } from '../auth/console-route.decorator';
import { SessionCookie } from '../auth/session-cookie';
import { Workspaces } from '../auth/workspaces';
import { ApiConsoleErrors, ApiView } from '../openapi/console-responses';
import { Sessions } from '../session/session-views';
import { SignInThrottle } from '../session/sign-in-throttle';

/** The invitation link's page: what it offers, and accepting it (which signs in). */
@ApiTags('Invitations')
@Controller('api/invitations')
export class PublicInvitationsController {
  constructor(
    private readonly people: PeopleAdmin,
    private readonly workspaces: Workspaces,
    private readonly sessions: Sessions,
    private readonly throttle: SignInThrottle,
    private readonly cookie: SessionCookie,
  ) {}

  @Post('accept')
  @HttpCode(200)
  @ConsoleRoute('public')
  @ApiOperation({
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation',
    description:
      'Signs in (sets the session cookie). Creates the person when none has the invited e-mail; otherwise `password` must be theirs (401, counted as a failed sign-in). 400 `invalid_token` when the link is unknown, used or expired.',
  })
  @ApiView(200, 'Signed in, a member of the workspace.', SessionView)
  @ApiConsoleErrors(400, 401, 403, 429, 503)
  async accept(@Body(dto(AcceptInvitationRequest, 'body')) body: AcceptInvitationRequest, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionView> {
    const found = await this.people.findInvitation(body.token);
    // The password of an existing account is checked: reserved like a sign-in (see SignInThrottle).
    const attempt = found?.hasAccount ? await this.throttle.reserve(found.invitation.email, req.ip) : null;
    let accepted;
    try {
      accepted = await this.people.acceptInvitation(body.token, body.password, body.display_name);
    } catch (err) {
      if (attempt) await (err instanceof InvalidCredentials ? this.throttle.failed(attempt) : this.throttle.release(attempt));
      throw err;
    }
    if (attempt) await this.throttle.succeeded(attempt);
    return this.sessions.start(accepted.person, reply, this.cookie.read(req));
  }

  @Get(':token')
  @ConsoleRoute('public')
  @ApiOperation({ operationId: 'getInvitation', summary: 'What an invitation offers', description: '404 when the link is unknown, used or expired.' })
  @ApiView(200, 'The invitation.', InvitationPreviewView)
  @ApiConsoleErrors(400, 404, 503)
  async preview(@Param(dto(InvitationTokenParams, 'path')) params: InvitationTokenParams): Promise<InvitationPreviewView> {
    const found = await this.people.findInvitation(params.token);
    if (!found) throw new NotFound('Invitation');
    const facts = await this.workspaces.facts(found.invitation.workspace_id);
    if (!facts) throw new NotFound('Invitation');
    return { email: found.invitation.email, role: found.invitation.role, workspace_name: facts.name, has_account: found.hasAccount };
  }
}
