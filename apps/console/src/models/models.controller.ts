import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreateModelConnectionBody,
  EmbeddingSettingsView,
  ModelConnectionParams,
  ModelConnectionTestResult,
  ModelConnectionView,
  TestModelConnectionBody,
  UpdateEmbeddingSettingsBody,
  UpdateModelConnectionBody,
  WorkspaceParams,
} from '@sa/contracts';
import { dto } from '@sa/edge';
import { TEST_RPC_TIMEOUT_MS } from '@sa/llm-config';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData, ApiEmpty, ApiList } from '../openapi/console-responses';

/**
 * The Models page (issue 32): the workspace's provider connections (bots service) and its
 * embedding model (knowledge). Everyone reads; owners and admins change, audit-logged without the
 * key (which is write-only: no answer of any route carries it).
 */
@ApiTags('Models')
@Controller('api/workspaces/:workspaceId')
export class ModelsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get('models')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listModelConnections', summary: 'Model connections', description: 'The provider connections of the workspace, oldest first. Keys are never shown: `has_key` says whether one is set.' })
  @ApiList('The connections.', ModelConnectionView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<{ data: ModelConnectionView[] }> {
    return { data: await this.rpc.send('bots.model.list', {}, workspaceOf(caller).ctx) };
  }

  @Post('models')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'createModelConnection',
    summary: 'Add a model connection',
    description: 'OpenAI-compatible (base URL, key, model), Anthropic or Ollama. The key is stored encrypted and never shown again. 409 `conflict`: the name is taken, or the workspace has 20.',
  })
  @ApiData(201, 'The connection.', ModelConnectionView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async create(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(CreateModelConnectionBody, 'body')) body: CreateModelConnectionBody,
  ): Promise<{ data: ModelConnectionView }> {
    const created = await this.rpc.send('bots.model.create', body, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'model.connection_created', 'model_connection', created.id, { name: created.name, kind: created.kind, base_url: created.base_url, model: created.model, has_key: created.has_key });
    return { data: created };
  }

  @Patch('models/:connectionId')
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'updateModelConnection', summary: 'Change a model connection', description: 'Members left out stay as they are; a new `api_key` replaces the stored one, `api_key: null` removes it. Bots using it answer through the change from their next turn.' })
  @ApiData(200, 'The connection as saved.', ModelConnectionView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(ModelConnectionParams, 'path')) params: ModelConnectionParams,
    @Body(dto(UpdateModelConnectionBody, 'body')) body: UpdateModelConnectionBody,
  ): Promise<{ data: ModelConnectionView }> {
    const saved = await this.rpc.send('bots.model.update', { ...body, connectionId: params.connectionId }, workspaceOf(caller).ctx);
    const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
    await this.audit.record(caller, 'model.connection_updated', 'model_connection', saved.id, { changed, name: saved.name, base_url: saved.base_url, model: saved.model, has_key: saved.has_key });
    return { data: saved };
  }

  @Delete('models/:connectionId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'deleteModelConnection', summary: 'Delete a model connection', description: "Its bots go back to the installation's model. 409 `conflict` while the workspace's knowledge is embedded with it." })
  @ApiEmpty(204, 'Deleted.')
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async delete(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(ModelConnectionParams, 'path')) params: ModelConnectionParams): Promise<void> {
    await this.rpc.send('bots.model.delete', { connectionId: params.connectionId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'model.connection_deleted', 'model_connection', params.connectionId);
  }

  @Post('models/:connectionId/test')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'testModelConnection', summary: 'Test a model connection', description: "One tiny request to the provider. Its refusal (bad key, unknown model, unreachable, blocked) is the result's `message`, with `ok: false`." })
  @ApiData(200, 'What the provider said.', ModelConnectionTestResult)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async test(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(ModelConnectionParams, 'path')) params: ModelConnectionParams,
    @Body(dto(TestModelConnectionBody, 'body')) body: TestModelConnectionBody,
  ): Promise<{ data: ModelConnectionTestResult }> {
    const result = await this.rpc.send('bots.model.test', { ...body, connectionId: params.connectionId }, workspaceOf(caller).ctx, { timeoutMs: TEST_RPC_TIMEOUT_MS });
    await this.audit.record(caller, 'model.connection_tested', 'model_connection', params.connectionId, { use: body.use ?? 'chat', ok: result.ok, status: result.status });
    return { data: result };
  }

  @Get('embedding')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getEmbeddingSettings', summary: "The workspace's embedding model", description: 'Which model the knowledge is embedded with, and the progress of a switch.' })
  @ApiData(200, 'The embedding settings.', EmbeddingSettingsView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async embedding(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<{ data: EmbeddingSettingsView }> {
    return { data: await this.rpc.send('knowledge.embedding.get', {}, workspaceOf(caller).ctx) };
  }

  @Put('embedding')
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateEmbeddingSettings',
    summary: 'Switch the embedding model',
    description: 'The connection is tried once first (a refusal is a 400 saying why). The knowledge is then re-embedded in the background; the old index answers until the new one is complete.',
  })
  @ApiData(200, 'The embedding settings, reindexing.', EmbeddingSettingsView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async switchEmbedding(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(UpdateEmbeddingSettingsBody, 'body')) body: UpdateEmbeddingSettingsBody,
  ): Promise<{ data: EmbeddingSettingsView }> {
    const saved = await this.rpc.send('knowledge.embedding.update', body, workspaceOf(caller).ctx, { timeoutMs: TEST_RPC_TIMEOUT_MS });
    await this.audit.record(caller, 'model.embedding_changed', 'workspace', workspaceOf(caller).ctx.tenantId, { connection_id: body.connection_id, status: saved.status });
    return { data: saved };
  }
}
