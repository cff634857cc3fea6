import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiTokenView, CreateApiTokenRequest, CreatedApiTokenView, TokenParams, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiList, ApiView } from '../openapi/console-responses';

/**
 * API tokens (spec part 5 rule 2): everyone reads the list, owners and admins create (the secret
 * is in this one answer) and revoke. Changed by the gateway over NATS (identity.token.*), which
 * announces a revocation to every edge at once.
 */
@ApiTags('API tokens')
@Controller('api/workspaces/:workspaceId/tokens')
export class TokensController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listTokens', summary: 'List API tokens', description: 'Every token of the workspace, revoked and expired ones included (never a secret).' })
  @ApiList('The tokens, oldest first.', ApiTokenView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<{ data: ApiTokenView[] }> {
    return { data: await this.rpc.send('identity.token.list', {}, workspaceOf(caller).ctx) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'createToken', summary: 'Create an API token', description: 'Creates a token with the chosen scopes, for every bot or the chosen bots, optionally expiring. Its secret (`token`) is shown in this answer only.' })
  @ApiView(201, 'The new token, with its secret.', CreatedApiTokenView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async create(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(CreateApiTokenRequest, 'body')) body: CreateApiTokenRequest,
  ): Promise<CreatedApiTokenView> {
    const w = workspaceOf(caller);
    const created = await this.rpc.send('identity.token.create', body, w.ctx);
    await this.audit.record(caller, 'token.created', 'token', created.id, { name: created.name, hint: created.hint, scopes: created.scopes, bot_ids: created.bot_ids, expires_at: created.expires_at });
    return created;
  }

  @Post(':tokenId/revoke')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'revokeToken', summary: 'Revoke an API token', description: 'The token answers 401 at every edge within seconds. Revoking a revoked token changes nothing.' })
  @ApiView(200, 'The revoked token.', ApiTokenView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async revoke(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(TokenParams, 'path')) params: TokenParams): Promise<ApiTokenView> {
    const revoked = await this.rpc.send('identity.token.revoke', { token_id: params.tokenId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'token.revoked', 'token', revoked.id, { name: revoked.name, hint: revoked.hint });
    return revoked;
  }
}
