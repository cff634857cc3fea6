import { Controller } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiTokenIdRequest, ApiTokenView, CallerContext, CreateApiTokenRequest, CreatedApiTokenView, ListApiTokensRequest } from '@sa/contracts';
import { BadRequest, NotFound } from '@sa/errors';
import { AdminInputError, AdminNotFoundError, IdentityAdmin, TokenSummary } from '@sa/identity-db';
import { RpcClient, RpcHandler } from '@sa/messaging';

/**
 * API tokens managed by a workspace's people (the console; spec part 5 rule 2): the same
 * IdentityAdmin as the admin CLI, always within the caller's workspace (ctx.tenantId, never the
 * body). A revocation is announced in its transaction (NOTIFY identity_changed), so every
 * gateway drops its cached copy at once and relays it to the other edges.
 */
@Controller()
export class TokensHandler {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly rpc: RpcClient,
  ) {}

  @RpcHandler('identity.token.create')
  async create(req: CreateApiTokenRequest, ctx: CallerContext): Promise<CreatedApiTokenView> {
    const created = await domainErrors(() =>
      this.admin(ctx).createToken({
        workspaceId: ctx.tenantId,
        name: req.name,
        scopes: req.scopes,
        botIds: req.bot_ids ?? undefined,
        expiresInSeconds: req.expires_in_seconds ?? undefined,
      }),
    );
    return { ...tokenView(created.summary), token: created.token };
  }

  @RpcHandler('identity.token.list')
  async list(_req: ListApiTokensRequest, ctx: CallerContext): Promise<ApiTokenView[]> {
    return (await domainErrors(() => this.admin(ctx).listTokens(ctx.tenantId))).map(tokenView);
  }

  @RpcHandler('identity.token.revoke')
  async revoke(req: ApiTokenIdRequest, ctx: CallerContext): Promise<ApiTokenView> {
    return tokenView(await domainErrors(() => this.admin(ctx).revokeToken(req.token_id, ctx.tenantId)));
  }

  /** Bot ids are the bots service's data: asked with the caller's own context (bots.bot.check). */
  private admin(ctx: CallerContext): IdentityAdmin {
    return new IdentityAdmin(this.ds, async (_workspace, ids) => (await this.rpc.send('bots.bot.check', { ids }, ctx)).found);
  }
}

function tokenView(t: TokenSummary): ApiTokenView {
  return {
    id: t.id,
    name: t.name,
    hint: t.hint,
    scopes: t.scopes,
    bot_ids: t.bot_ids,
    created_at: t.created_at,
    last_used_at: t.last_used_at,
    expires_at: t.expires_at,
    revoked_at: t.revoked_at,
  };
}

/** IdentityAdmin speaks to operators; over NATS its refusals become domain errors (404, 400). */
async function domainErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AdminNotFoundError) throw new NotFound(err.what);
    if (err instanceof AdminInputError) throw new BadRequest(err.message);
    throw err;
  }
}
