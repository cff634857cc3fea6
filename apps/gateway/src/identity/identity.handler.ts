import { Controller } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RecordTokenUseReply, RecordTokenUseRequest, SetupWorkspaceRequest, VerifyTokenReply, VerifyTokenRequest, WorkspaceFactsReply, WorkspaceFactsRequest } from '@sa/contracts';
import { tokenGrantView, workspaceFactsView } from '@sa/identity';
import { DbIdentitySource, IdentityAdmin } from '@sa/identity-db';
import { RpcHandler } from '@sa/messaging';

/**
 * Identity for the processes that do not own it (the MCP server, the webhook dispatcher): the
 * gateway owns schema `identity` and answers over NATS in queue group `gateway`, straight from its
 * database (the callers cache, and hear changes on `identity.changes`).
 */
@Controller()
export class IdentityHandler {
  constructor(
    private readonly identity: DbIdentitySource,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  @RpcHandler('identity.token.verify')
  async verify(req: VerifyTokenRequest): Promise<VerifyTokenReply> {
    const loaded = await this.identity.token(req.tokenHash);
    if (!loaded) return { token: null, workspace: null };
    const workspace = await this.identity.workspace(loaded.token.workspaceId);
    return { token: tokenGrantView(loaded.token), workspace: workspace ? workspaceFactsView(workspace) : null };
  }

  @RpcHandler('identity.workspace.get')
  async workspace(req: WorkspaceFactsRequest): Promise<WorkspaceFactsReply> {
    const workspace = await this.identity.workspace(req.workspaceId);
    return { workspace: workspace ? workspaceFactsView(workspace) : null };
  }

  /** The console's first-run setup (it checked the setup code and holds the setup lock). */
  @RpcHandler('identity.workspace.setup')
  async setup(req: SetupWorkspaceRequest): Promise<WorkspaceFactsReply> {
    const workspace = await new IdentityAdmin(this.ds).setupWorkspace(req.workspaceId, req.name, req.plan);
    const facts = await this.identity.workspace(workspace.id);
    return { workspace: facts ? workspaceFactsView(facts) : null };
  }

  @RpcHandler('identity.token.touch')
  async touch(req: RecordTokenUseRequest): Promise<RecordTokenUseReply> {
    return { recorded: await this.identity.recordUses(req.uses.map((u) => ({ id: u.id, at: new Date(u.at) }))) };
  }
}
