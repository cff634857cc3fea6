import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Logger } from 'pino';
import { PasswordResetConfirmRequest, PasswordResetRequest } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { PeopleAdmin } from '@sa/people';
import { ConsoleRoute } from '../auth/console-route.decorator';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from '../config/console.config';
import { passwordResetEmail } from '../mail/person-mail';
import { ResetMailLimit } from '../session/sign-in-throttle';
import { ApiConsoleErrors, ApiEmpty } from '../openapi/console-responses';

@ApiTags('Session')
@Controller('api/password-resets')
export class PasswordResetController {
  constructor(
    private readonly people: PeopleAdmin,
    private readonly rpc: RpcClient,
    private readonly limit: ResetMailLimit,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post()
  @HttpCode(202)
  @ConsoleRoute('public')
  @ApiOperation({
    operationId: 'requestPasswordReset',
    summary: 'Ask for a password reset link',
    description:
      'Always 202, whether or not a person has this e-mail (the answer tells nothing). When one has, a single-use link valid for an hour goes to that address, ' +
      'at most a few times an hour per address (more requests are answered 202 and send nothing). Too many requests from one client address: 429.',
  })
  @ApiEmpty(202, 'Accepted.')
  @ApiConsoleErrors(400, 403, 429)
  async request(@Body(dto(PasswordResetRequest, 'body')) body: PasswordResetRequest, @Req() req: FastifyRequest): Promise<Record<string, never>> {
    const { mayEmail } = await this.limit.request(body.email, req.ip);
    // Not awaited: a known and an unknown address are answered in the same time.
    if (mayEmail) void this.sendReset(body.email);
    return {};
  }

  private async sendReset(email: string): Promise<void> {
    try {
      const reset = await this.people.createPasswordReset(email);
      if (!reset) return;
      await this.rpc.send('bookings.email.send', passwordResetEmail({ publicUrl: this.config.publicUrl, to: reset.person.email, token: reset.token, ttlSeconds: this.config.passwordResetTtlSeconds }));
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'password reset e-mail not sent');
    }
  }

  @Post('confirm')
  @HttpCode(204)
  @ConsoleRoute('public')
  @ApiOperation({ operationId: 'confirmPasswordReset', summary: 'Set a new password', description: 'With the token of a reset link (single use, expiring). Ends every session of the person.' })
  @ApiEmpty(204, 'The password is set.')
  @ApiConsoleErrors(400, 403)
  async confirm(@Body(dto(PasswordResetConfirmRequest, 'body')) body: PasswordResetConfirmRequest): Promise<void> {
    await this.people.confirmPasswordReset(body.token, body.password);
  }
}
