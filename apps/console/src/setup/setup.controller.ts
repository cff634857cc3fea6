import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SessionView, SetupRequest, SetupStatusView } from '@sa/contracts';
import { dto } from '@sa/edge';
import { ConsoleRoute } from '../auth/console-route.decorator';
import { SessionCookie } from '../auth/session-cookie';
import { ApiConsoleErrors, ApiView } from '../openapi/console-responses';
import { Sessions } from '../session/session-views';
import { SignInThrottle } from '../session/sign-in-throttle';
import { InvalidSetupCode, SetupService } from './setup.service';

/** Wrong setup codes count like failed sign-ins of one account, per client address too. */
const SETUP_ACCOUNT = 'setup@installation.invalid';

/** First-run setup: the first workspace and its owner, for the holder of the setup code (issue 31). */
@ApiTags('Session')
@Controller('api/setup')
export class SetupController {
  constructor(
    private readonly setup: SetupService,
    private readonly sessions: Sessions,
    private readonly throttle: SignInThrottle,
    private readonly cookie: SessionCookie,
  ) {}

  @Get()
  @ConsoleRoute('public')
  @ApiOperation({ operationId: 'getSetup', summary: 'Whether the installation waits for its first owner', description: '200 while nobody has set it up; 410 `setup_done` for good once the first owner exists.' })
  @ApiView(200, 'Setup is open (it needs the setup code).', SetupStatusView)
  @ApiConsoleErrors(410, 503)
  async status(): Promise<SetupStatusView> {
    await this.setup.checkOpen();
    return { needed: true };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoute('public')
  @ApiOperation({
    operationId: 'completeSetup',
    summary: 'Set the installation up',
    description:
      'Creates the first workspace (on the installation\'s default plan, CONSOLE_SETUP_PLAN) and its owner, and signs the owner in (sets the session cookie). ' +
      '403 `invalid_setup_code` for a wrong or expired code (counted like a failed sign-in: 429 `too_many_attempts` after several); 410 `setup_done` once the installation is set up. The setup code dies here.',
  })
  @ApiView(201, 'Set up: the owner is signed in.', SessionView)
  @ApiConsoleErrors(400, 403, 410, 429, 503)
  async complete(@Body(dto(SetupRequest, 'body')) body: SetupRequest, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionView> {
    await this.setup.checkOpen();
    const attempt = await this.throttle.reserve(SETUP_ACCOUNT, req.ip);
    let done;
    try {
      done = await this.setup.complete(body);
    } catch (err) {
      await (err instanceof InvalidSetupCode ? this.throttle.failed(attempt) : this.throttle.release(attempt));
      throw err;
    }
    await this.throttle.succeeded(attempt);
    return this.sessions.start(done.person, reply, this.cookie.read(req));
  }
}
