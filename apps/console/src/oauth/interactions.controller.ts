import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SCOPES, Scope } from '@sa/contracts';
import { dto } from '@sa/edge';
import { DomainError, NotFound, ValidationFailed } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { ForbiddenRole, PeopleAdmin, roleAtLeast } from '@sa/people';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute } from '../auth/console-route.decorator';
import { Workspaces } from '../auth/workspaces';
import { ApiConsoleErrors, ApiView } from '../openapi/console-responses';
import { AllowInteractionRequest, InteractionDoneView, InteractionParams, InteractionView } from './oauth-views';
import { OauthServer } from './oauth-server';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** A consent answered in another browser than the one that started the authorization (403). */
export class OtherBrowser extends DomainError {
  constructor() {
    super(
      'csrf_failed',
      'This request to connect an application was started in another browser. Only the browser that started it can approve it: if you did not start connecting an application yourself, someone may be trying to get access to your workspace.',
    );
  }
}

type Http = { req: FastifyRequest; reply: FastifyReply };

/**
 * The consent of an authorization (the web page /oauth/consent/:uid calls these): what the client
 * asks for, and the signed-in person's Allow (workspace, scopes, bots: a grant and a connection)
 * or Deny (access_denied). The person must be owner or admin of the workspace chosen.
 */
@ApiTags('OAuth consent')
@Controller('api/oauth/interactions/:uid')
export class OauthInteractionsController {
  constructor(
    private readonly oauth: OauthServer,
    private readonly people: PeopleAdmin,
    private readonly workspaces: Workspaces,
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
    @Inject(getDataSourceToken()) private readonly ds: DataSource,
  ) {}

  /**
   * The interaction, if it is still waiting and this browser started it: the request must carry
   * the signed interaction cookie of that uid (set by the authorization endpoint for the consent
   * API's path). A link opened in another browser is refused, so a person cannot approve a request
   * someone else started and sent her (the code would go to his browser).
   */
  private async load(uid: string, http: Http): Promise<{ interaction: any; client: any; requested: string[]; resource: string }> {
    const interaction = await this.oauth.provider.Interaction.find(uid);
    if (!interaction || interaction.result) throw new NotFound('Authorization request');
    if ((await this.oauth.boundInteraction(http.req.raw, http.reply.raw)) !== interaction.uid) throw new OtherBrowser();
    const params = interaction.params as Record<string, string | undefined>;
    const client = params['client_id'] ? await this.oauth.provider.Client.find(params['client_id']) : undefined;
    if (!client) throw new NotFound('Authorization request');
    const requested = (params['scope'] ?? '').split(' ').filter(Boolean);
    return { interaction, client, requested, resource: this.oauth.resource };
  }

  private redirectHost(interaction: any): string {
    try {
      return new URL(String(interaction.params['redirect_uri'])).host;
    } catch {
      return '';
    }
  }

  @Get()
  @ConsoleRoute('session')
  @ApiOperation({ operationId: 'getOauthInteraction', summary: 'What a client asks for', description: 'The client (its self-asserted name, never verified), its redirect host, the scopes requested and the workspaces the person may approve for (owner or admin). Only the browser that started the authorization may read and answer it (its interaction cookie): another browser gets 403 `csrf_failed`.' })
  @ApiView(200, 'The request.', InteractionView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async get(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param(dto(InteractionParams, 'path')) params: InteractionParams,
  ): Promise<InteractionView> {
    const { interaction, client, requested, resource } = await this.load(params.uid, { req, reply });
    const memberships = (await this.people.workspacesOf(caller.person.id)).filter((m) => roleAtLeast(m.role, 'admin'));
    const names = await this.workspaces.names(memberships.map((m) => m.workspace_id));
    return {
      client: { id: client.clientId, name: client.clientName ?? client.clientId, name_verified: false, redirect_host: this.redirectHost(interaction) },
      requested_scopes: requested.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
      resource,
      workspaces: memberships.filter((m) => names.has(m.workspace_id)).map((m) => ({ id: m.workspace_id, name: names.get(m.workspace_id)!, role: m.role })),
    };
  }

  @Post('allow')
  @HttpCode(200)
  @ConsoleRoute('session')
  @ApiOperation({ operationId: 'allowOauthInteraction', summary: 'Allow', description: 'Approves the client for one workspace with the chosen scopes (a subset of those requested) and bots (null: all); creates the connection. Answers where the browser goes next.' })
  @ApiView(200, 'Approved: where the browser goes next.', InteractionDoneView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async allow(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param(dto(InteractionParams, 'path')) params: InteractionParams,
    @Body(dto(AllowInteractionRequest, 'body')) body: AllowInteractionRequest,
  ): Promise<{ redirect_to: string }> {
    const { interaction, client, requested, resource } = await this.load(params.uid, { req, reply });
    const role = await this.people.roleIn(caller.person.id, body.workspace_id);
    if (!role) throw new NotFound('Workspace');
    if (!roleAtLeast(role, 'admin')) throw new ForbiddenRole('Only owners and admins approve connections');
    const facts = await this.workspaces.facts(body.workspace_id);
    if (!facts) throw new NotFound('Workspace');
    const scopes = [...new Set(body.scopes)];
    const notRequested = scopes.filter((s) => !requested.includes(s));
    if (notRequested.length) {
      throw new ValidationFailed(notRequested.map((s) => ({ code: 'invalid_value', path: ['body', 'scopes'], message: `${s} was not requested by the client` })));
    }
    let botIds: string[] | null = body.bot_ids;
    if (botIds) {
      botIds = [...new Set(botIds)];
      const ctx = this.workspaces.callerContext(facts, role, String(req.id));
      const { found } = await this.rpc.send('bots.bot.check', { ids: botIds }, ctx);
      const missing = botIds.filter((id) => !found.includes(id));
      if (missing.length) throw new ValidationFailed(missing.map((id) => ({ code: 'invalid_value', path: ['body', 'bot_ids'], message: `bot ${id} is not in this workspace` })));
    }

    const grant = new this.oauth.provider.Grant({ accountId: caller.person.id, clientId: client.clientId });
    grant.addResourceScope(resource, scopes.join(' '));
    // The scopes the person left out are rejected (else oidc-provider would ask again).
    const left = requested.filter((s) => (SCOPES as readonly string[]).includes(s) && !scopes.includes(s as Scope));
    if (left.length) grant.rejectResourceScope(resource, left.join(' '));
    // Refresh tokens are issued without offline_access; when asked for, it is granted too. Any
    // other OIDC scope (openid …) is rejected: no ID tokens, no user info.
    if (requested.includes('offline_access')) grant.addOIDCScope('offline_access');
    const otherScopes = requested.filter((s) => s !== 'offline_access' && !(SCOPES as readonly string[]).includes(s));
    if (otherScopes.length) grant.rejectOIDCScope(otherScopes.join(' '));
    const grantId: string = await grant.save();
    const connectionId = randomUUID();
    await this.ds.query(
      `INSERT INTO people.oauth_connections (id, workspace_id, person_id, client_id, client_name, redirect_host, grant_id, scopes, bot_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [connectionId, body.workspace_id, caller.person.id, client.clientId, String(client.clientName ?? client.clientId).slice(0, 200), this.redirectHost(interaction).slice(0, 300), grantId, scopes, botIds],
    );
    await this.audit.record({ ...caller, workspace: { id: facts.id, name: facts.name, role } }, 'connection.created', 'connection', connectionId, {
      client_id: client.clientId,
      client_name: client.clientName ?? null,
      redirect_host: this.redirectHost(interaction),
      scopes,
      bot_ids: botIds,
    });
    return { redirect_to: await this.finish(interaction, { login: { accountId: caller.person.id }, consent: { grantId } }) };
  }

  @Post('deny')
  @HttpCode(200)
  @ConsoleRoute('session')
  @ApiOperation({ operationId: 'denyOauthInteraction', summary: 'Deny', description: 'Refuses the client: it receives error access_denied. Answers where the browser goes next.' })
  @ApiView(200, 'Denied: where the browser goes next.', InteractionDoneView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async deny(
    @ConsoleCaller() _caller: ConsoleCallerInfo,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param(dto(InteractionParams, 'path')) params: InteractionParams,
  ): Promise<{ redirect_to: string }> {
    const { interaction } = await this.load(params.uid, { req, reply });
    return { redirect_to: await this.finish(interaction, { error: 'access_denied', error_description: 'The person denied the request' }) };
  }

  /** As oidc-provider's interactionResult: the result saved on the interaction, the browser sent back to resume the authorization (its resume cookie, too, binds it to the browser that started). */
  private async finish(interaction: any, result: Record<string, unknown>): Promise<string> {
    interaction.result = result;
    const ttl = Math.max(1, interaction.exp - Math.floor(Date.now() / 1000));
    await interaction.save(ttl);
    return new URL(interaction.returnTo, this.oauth.issuer).toString();
  }
}
