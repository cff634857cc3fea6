import { Body, Controller, Param, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { TokenBudgetView, UpdateTokenBudgetBody, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData } from '../openapi/console-responses';

/**
 * The workspace's monthly token budget (issue 32): owners and admins set or remove it (audit-logged);
 * past it, chat answers 402 `quota_exhausted` as with the message quota. Read with the token usage
 * (GET …/analytics/tokens). The chat service keeps it.
 */
@ApiTags('Workspace')
@Controller('api/workspaces/:workspaceId/token-budget')
export class TokenBudgetController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Put()
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'setTokenBudget',
    summary: 'Set the monthly token budget',
    description: 'Prompt plus completion tokens a calendar month (UTC) for every bot of the workspace; `null` removes it. Once the month reaches it, chat answers 402 `quota_exhausted`.',
  })
  @ApiData(200, 'The budget as saved, with this month’s use.', TokenBudgetView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async set(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) params: WorkspaceParams, @Body(dto(UpdateTokenBudgetBody, 'body')) body: UpdateTokenBudgetBody): Promise<{ data: TokenBudgetView }> {
    const saved = await this.rpc.send('chat.tokens.budget.set', body, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'workspace.token_budget_updated', 'workspace', params.workspaceId, { monthly_tokens: saved.monthly_tokens });
    return { data: saved };
  }
}
