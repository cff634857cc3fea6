import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SessionView, SignInRequest } from '@sa/contracts';
import { dto } from '@sa/edge';
import { InvalidCredentials, NotSignedIn, PeopleAdmin } from '@sa/people';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRequest, ConsoleRoute } from '../auth/console-route.decorator';
import { SessionCookie } from '../auth/session-cookie';
import { ApiConsoleErrors, ApiEmpty, ApiView } from '../openapi/console-responses';
import { SignInThrottle } from './sign-in-throttle';
import { Sessions } from './session-views';

@ApiTags('Session')
@Controller('api/session')
export class SessionController {
  constructor(
    private readonly people: PeopleAdmin,
    private readonly sessions: Sessions,
    private readonly throttle: SignInThrottle,
    private readonly cookie: SessionCookie,
  ) {}

  @Post()
  @HttpCode(200)
  @ConsoleRoute('public')
  @ApiOperation({ operationId: 'signIn', summary: 'Sign in', description: 'Starts a session (a new one at every sign-in) and sets the `sa_console_session` cookie. Failed attempts are slowed down (429 `too_many_attempts` with Retry-After, progressive delays) per account, per account and client address, and per client address; an address the person signed in from before is not slowed down by failures from elsewhere.' })
  @ApiView(200, 'Signed in.', SessionView)
  @ApiConsoleErrors(400, 401, 403, 429, 503)
  async signIn(@Body(dto(SignInRequest, 'body')) body: SignInRequest, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionView> {
    // Reserved before the password is checked (concurrent guesses cannot outrun the budget).
    const attempt = await this.throttle.reserve(body.email, req.ip);
    const person = await this.people.authenticate(body.email, body.password).catch(async (err: unknown) => {
      await this.throttle.release(attempt);
      throw err;
    });
    if (!person) {
      await this.throttle.failed(attempt);
      throw new InvalidCredentials();
    }
    await this.throttle.succeeded(attempt);
    return this.sessions.start(person, reply, this.cookie.read(req));
  }

  @Get()
  @ConsoleRoute('session')
  @ApiOperation({ operationId: 'getSession', summary: 'The current session', description: 'The signed-in person, their workspaces and the CSRF token; 401 `not_signed_in` without a live session.' })
  @ApiView(200, 'The session.', SessionView)
  @ApiConsoleErrors(401, 503)
  async current(@ConsoleCaller() caller: ConsoleCallerInfo, @Req() req: FastifyRequest & ConsoleRequest): Promise<SessionView> {
    if (!req.consoleSessionSecret || !req.consoleSessionExpiresAt) throw new NotSignedIn();
    return this.sessions.view(caller.person, req.consoleSessionSecret, req.consoleSessionExpiresAt);
  }

  @Delete()
  @HttpCode(204)
  @ConsoleRoute('session')
  @ApiOperation({ operationId: 'signOut', summary: 'Sign out', description: 'Ends this session and clears the cookie.' })
  @ApiEmpty(204, 'Signed out.')
  @ApiConsoleErrors(401, 403)
  async signOut(@ConsoleCaller() caller: ConsoleCallerInfo, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.people.endSession(caller.sessionId);
    this.cookie.clear(reply);
  }

  @Post('sign-out-everywhere')
  @HttpCode(204)
  @ConsoleRoute('session')
  @ApiOperation({ operationId: 'signOutEverywhere', summary: 'Sign out everywhere', description: 'Ends every session of the person, this one included.' })
  @ApiEmpty(204, 'Every session ended.')
  @ApiConsoleErrors(401, 403)
  async signOutEverywhere(@ConsoleCaller() caller: ConsoleCallerInfo, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.people.endAllSessions(caller.person.id);
    this.cookie.clear(reply);
  }
}
