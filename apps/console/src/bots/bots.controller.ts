import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BotOptionView, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiList } from '../openapi/console-responses';

/** The workspace's bots, for the pickers of the token and webhook forms (bots.bot.list). */
@ApiTags('Workspace')
@Controller('api/workspaces/:workspaceId/bots')
export class BotsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listBots', summary: 'List bots', description: 'Id and name of every bot of the workspace.' })
  @ApiList('The bots.', BotOptionView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<{ data: BotOptionView[] }> {
    const bots = await this.rpc.send('bots.bot.list', {}, workspaceOf(caller).ctx);
    return { data: bots.map((b) => ({ id: b.id, name: b.name })) };
  }
}
