import { Controller } from '@nestjs/common';
import {
  CallerContext,
  CreateModelConnectionRequest,
  ModelConnectionIdRequest,
  ModelConnectionSpec,
  ModelConnectionTestResult,
  ModelConnectionView,
  TestModelConnectionRequest,
  UpdateModelConnectionRequest,
} from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { ModelConnectionsService } from './model-connections.service';

/** bots.model.*: the workspace's model connections (issue 32). */
@Controller()
export class ModelConnectionsHandler {
  constructor(private readonly connections: ModelConnectionsService) {}

  @RpcHandler('bots.model.list')
  list(_req: unknown, ctx: CallerContext): Promise<ModelConnectionView[]> {
    return this.connections.list(ctx);
  }

  @RpcHandler('bots.model.create')
  create(req: CreateModelConnectionRequest, ctx: CallerContext): Promise<ModelConnectionView> {
    return this.connections.create(ctx, req);
  }

  @RpcHandler('bots.model.update')
  update(req: UpdateModelConnectionRequest, ctx: CallerContext): Promise<ModelConnectionView> {
    return this.connections.update(ctx, req);
  }

  @RpcHandler('bots.model.delete')
  delete(req: ModelConnectionIdRequest, ctx: CallerContext): Promise<{ deleted: true }> {
    return this.connections.delete(ctx, req.connectionId);
  }

  @RpcHandler('bots.model.test')
  test(req: TestModelConnectionRequest, ctx: CallerContext): Promise<ModelConnectionTestResult> {
    return this.connections.test(ctx, req);
  }

  @RpcHandler('bots.model.spec')
  spec(req: ModelConnectionIdRequest, ctx: CallerContext): Promise<ModelConnectionSpec> {
    return this.connections.spec(ctx, req.connectionId);
  }
}
