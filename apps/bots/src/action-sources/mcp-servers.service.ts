import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { type McpConnectOptions, McpConnectionError, listMcpTools, withMcpExchange } from '@sa/actions';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import {
  CallerContext,
  CreateMcpServerRequest,
  FinishMcpOAuthRequest,
  MCP_CALL_TIMEOUT_MS,
  MCP_ENABLED_TOOLS_PER_BOT_MAX,
  MCP_OAUTH_FLOW_TTL_SECONDS,
  MCP_OAUTH_REFRESH_MARGIN_SECONDS,
  MCP_SERVERS_PER_BOT_MAX,
  MCP_TOOLS_PER_SERVER_MAX,
  McpAuthKind,
  McpOAuthFinishView,
  McpOAuthFlowRequest,
  McpOAuthFlowView,
  McpOAuthStartView,
  McpSealedAuth,
  McpServerSpec,
  McpServerTokenRequest,
  McpServerTokenView,
  McpServerView,
  StartMcpOAuthRequest,
  UpdateMcpServerRequest,
  ValidationIssue,
} from '@sa/contracts';
import { BadRequest, DomainError, NotFound, ServiceUnavailable, ValidationFailed } from '@sa/errors';
import type { OutboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
import { ACTION_OUTBOUND_POLICY } from '../actions/actions.service';
import { WIDGET_SECRET_BOX } from '../widget/widget-settings.service';
import { type McpOAuthSecrets, type McpOAuthSettings, type McpOAuthStepContext, finishMcpOAuth, issuerOf, refreshMcpOAuth, startMcpOAuth } from './mcp-oauth';
import { type ListedTool, applyToolChanges, mergeTools, originOf, urlIssues } from './mcp-server-rules';
import { McpOAuthFields, McpServerFields, McpServerRow, McpServersRepository, NO_OAUTH, toMcpServerSpec, toMcpServerView } from './mcp-servers.repository';

/** Options of the MCP sources for tests: a local server over http, a shorter deadline. Never set by the app. */
export const MCP_SOURCE_OPTIONS = Symbol('MCP_SOURCE_OPTIONS');
export interface McpSourceOptions {
  allowHttp?: boolean;
  timeoutMs?: number;
  /** Default MCP_OAUTH_REFRESH_MARGIN_SECONDS (tests of short-lived tokens: 0). */
  refreshMarginSeconds?: number;
}
/** How a sync lists a server's tools (listMcpTools; tests may count the calls). */
export type McpToolLister = (url: string, opts: McpConnectOptions & { max: number }) => Promise<ListedTool[]>;

/** A started Connect, sealed with the server (the state itself is never stored, only its hash). */
interface SealedFlow {
  verifier: string;
  redirect_uri: string;
  person_id: string;
}

const TOKEN_MOVED = 'Give the token again with a new address: a stored token is never sent to another address';
const FLOW_VOID = 'This authorization is unknown, already used or expired: click Connect again';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A bot's remote MCP servers (issue 34, item 3). The token is sealed as it arrives and leaves
 * this service only sealed (bots.action.specs, for chat) or not at all; a sync opens it in memory
 * for the one connection. A sync connects through the outbound guard, 10 s, no redirects; its
 * failure is stored as the server's `error` (the tools of the sync before stay), never an error
 * of the RPC. The console checks the caller's role and writes the audit log.
 *
 * OAuth as a client (mcp-oauth.ts, the SDK's auth()): Connect starts a flow (discovery,
 * registration, PKCE; the state's hash, the sealed verifier and a 10-minute expiry kept with the
 * server), the console's callback finishes it (state spent at once, the code exchanged, the
 * tokens sealed, a sync). The access token goes to chat sealed as a bearer's; the refresh token
 * stays here and is spent under the server's row lock, when the access token is within a minute
 * of its expiry or a server refused it (a sync, or chat through bots.mcp-server.token).
 */
@Injectable()
export class McpServersService {
  private readonly allowHttp: boolean;
  private readonly timeoutMs: number;
  private readonly lister: McpToolLister;
  private readonly refreshMarginMs: number;

  constructor(
    private readonly repository: McpServersRepository,
    @Inject(WIDGET_SECRET_BOX) private readonly box: SecretBox,
    @Inject(ACTION_OUTBOUND_POLICY) private readonly policy: OutboundPolicy,
    @Optional() @Inject(MCP_SOURCE_OPTIONS) options?: McpSourceOptions & { lister?: McpToolLister },
  ) {
    this.allowHttp = options?.allowHttp ?? false;
    this.timeoutMs = options?.timeoutMs ?? MCP_CALL_TIMEOUT_MS;
    this.lister = options?.lister ?? listMcpTools;
    this.refreshMarginMs = (options?.refreshMarginSeconds ?? MCP_OAUTH_REFRESH_MARGIN_SECONDS) * 1000;
  }

  private async bot(ctx: CallerContext, botId: string): Promise<void> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    if (!(await this.repository.botExists(ctx.tenantId, botId))) throw new NotFound('Bot');
  }

  private async row(ctx: CallerContext, botId: string, id: string): Promise<McpServerRow> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const row = await this.repository.find(ctx.tenantId, botId, id);
    if (!row) throw new NotFound('MCP server');
    return row;
  }

  async list(ctx: CallerContext, botId: string): Promise<McpServerView[]> {
    await this.bot(ctx, botId);
    return (await this.repository.list(ctx.tenantId, botId)).map(toMcpServerView);
  }

  async get(ctx: CallerContext, botId: string, id: string): Promise<McpServerView> {
    return toMcpServerView(await this.row(ctx, botId, id));
  }

  async create(ctx: CallerContext, req: CreateMcpServerRequest): Promise<McpServerView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.botId);
    const auth = req.auth ?? (req.token !== undefined ? 'bearer' : 'none');
    const issues = [...urlIssues(req.url, this.allowHttp), ...authIssues(auth, req.token !== undefined, false), ...oauthIssues(auth, req, null)];
    this.check(issues);
    const fields: McpServerFields = {
      name: req.name,
      url: req.url,
      auth,
      auth_sealed: auth === 'bearer' ? this.sealAuth({ type: 'bearer', token: req.token! }) : null,
      tools: [],
      skipped: [],
      last_synced_at: null,
      error: null,
      ...NO_OAUTH,
      ...(auth === 'oauth'
        ? { oauth_client_id: req.oauth_client_id ?? null, oauth_client_secret_sealed: req.oauth_client_secret ? this.box.seal(req.oauth_client_secret) : null, oauth_scope: req.oauth_scope ?? null }
        : {}),
    };
    const id = await this.unique(() => this.repository.insert(ctx.tenantId, req.botId, fields, MCP_SERVERS_PER_BOT_MAX));
    if (id === undefined) throw new NotFound('Bot');
    if (id === null) throw new DomainError('conflict', `A bot has at most ${MCP_SERVERS_PER_BOT_MAX} MCP servers`);
    return this.get(ctx, req.botId, id);
  }

  /**
   * A change of the name, the address, the credentials or tools' flags. A new address of another
   * origin needs the token again while one is stored (400), and forgets the tools (they were
   * another server's): sync again. With OAuth, another origin, another auth or another client id
   * disconnects (Connect again). Turning tools on past the bot's cap is a 409.
   */
  async update(ctx: CallerContext, req: UpdateMcpServerRequest): Promise<McpServerView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.botId);
    const changed = await this.unique(() =>
      this.repository.change(ctx.tenantId, req.botId, req.serverId, (current, enabledElsewhere) => {
        const url = req.url ?? current.url;
        const auth: McpAuthKind = req.auth ?? (req.token !== undefined ? 'bearer' : current.auth);
        const hasStored = current.auth_sealed !== null && auth === current.auth;
        const issues: ValidationIssue[] = [
          ...(req.url !== undefined ? urlIssues(url, this.allowHttp) : []),
          ...authIssues(auth, req.token !== undefined, hasStored),
          ...oauthIssues(auth, req, current.auth === 'oauth' ? current.oauth_client_id : null),
        ];
        const moved = originOf(url) !== originOf(current.url);
        if (moved && auth === 'bearer' && req.token === undefined) issues.push({ code: 'required', path: ['body', 'token'], message: TOKEN_MOVED });
        let tools = current.tools;
        let overCap = false;
        if (req.tools) {
          const applied = applyToolChanges(current.tools, req.tools, enabledElsewhere);
          issues.push(...applied.issues);
          tools = applied.tools;
          overCap = applied.overCap;
        }
        this.check(issues);
        if (overCap) throw new DomainError('conflict', `A bot offers at most ${MCP_ENABLED_TOOLS_PER_BOT_MAX} tools of MCP servers at once: turn another off first`);
        const urlChanged = url !== current.url;
        const oauth = auth === 'oauth' ? this.oauthFields(current, req, moved) : { ...NO_OAUTH };
        return {
          name: req.name ?? current.name,
          url,
          auth,
          auth_sealed: auth === 'none' ? null : auth === 'oauth' ? (oauth.oauth_sealed === null ? null : current.auth_sealed) : req.token !== undefined ? this.sealAuth({ type: 'bearer', token: req.token }) : current.auth_sealed,
          // Another address is another server: its tools come with the next sync.
          tools: urlChanged ? [] : tools,
          skipped: urlChanged ? [] : current.skipped,
          last_synced_at: urlChanged ? null : current.last_synced_at,
          error: urlChanged ? null : current.error,
          ...oauth,
        };
      }),
    );
    if (!changed) throw new NotFound('MCP server');
    return this.get(ctx, req.botId, req.serverId);
  }

  /**
   * The OAuth members after a change to (or of) an OAuth server: the owner's settings as given or
   * kept; the connection (tokens, registration, discovery) and a started Connect kept only while
   * the server stays at its origin with the same client.
   */
  private oauthFields(current: McpServerRow, req: UpdateMcpServerRequest, moved: boolean): McpOAuthFields {
    const was = current.auth === 'oauth';
    const clientId = req.oauth_client_id !== undefined ? req.oauth_client_id : was ? current.oauth_client_id : null;
    const sameClient = was && clientId === current.oauth_client_id;
    const secret = req.oauth_client_secret !== undefined ? this.box.seal(req.oauth_client_secret) : sameClient ? current.oauth_client_secret_sealed : null;
    const keep = sameClient && !moved;
    return {
      oauth_client_id: clientId,
      oauth_client_secret_sealed: clientId === null ? null : secret,
      oauth_scope: req.oauth_scope !== undefined ? req.oauth_scope : was ? current.oauth_scope : null,
      oauth_sealed: keep ? current.oauth_sealed : null,
      oauth_issuer: keep ? current.oauth_issuer : null,
      oauth_expires_at: keep ? current.oauth_expires_at : null,
      oauth_state_hash: keep ? current.oauth_state_hash : null,
      oauth_flow_sealed: keep ? current.oauth_flow_sealed : null,
      oauth_flow_expires_at: keep ? current.oauth_flow_expires_at : null,
    };
  }

  /** Deletes a server; answers it as it was (the console's audit entry names it). */
  async delete(ctx: CallerContext, botId: string, id: string): Promise<McpServerView> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const row = await this.repository.delete(ctx.tenantId, botId, id);
    if (!row) throw new NotFound('MCP server');
    return toMcpServerView(row);
  }

  /**
   * Connects to the server (the token opened for this connection only; with OAuth a fresh access
   * token), lists its tools and merges them into the stored ones under the bot's lock. A failure
   * is stored as `error` with the tools of the sync before; the answer is the server as stored
   * either way.
   */
  async sync(ctx: CallerContext, botId: string, id: string): Promise<McpServerView> {
    const row = await this.row(ctx, botId, id);
    let listed: ListedTool[] | null = null;
    let error: string | null = null;
    try {
      listed = await this.withAccess(ctx, row, (token) =>
        this.lister(row.url, { policy: this.policy, token, timeoutMs: this.timeoutMs, allowHttp: this.allowHttp, max: MCP_TOOLS_PER_SERVER_MAX }),
      );
    } catch (err) {
      if (!(err instanceof McpConnectionError)) throw err;
      error = err.message;
    }
    const changed = await this.repository.change(ctx.tenantId, botId, id, (current, enabledElsewhere) => {
      // The address changed while we listed: this list is another server's.
      if (current.url !== row.url) return current;
      if (listed === null) return { ...current, error };
      return { ...current, ...mergeTools(current.tools, listed, enabledElsewhere), last_synced_at: new Date(), error: null };
    });
    if (!changed) throw new NotFound('MCP server');
    return this.get(ctx, botId, id);
  }

  /**
   * Runs `use` with the server's token. With OAuth: a fresh access token, and when the server
   * refuses it, one refresh and one more try. Throws McpConnectionError.
   */
  private async withAccess<T>(ctx: CallerContext, row: McpServerRow, use: (token: string | null) => Promise<T>): Promise<T> {
    if (row.auth !== 'oauth') return use(row.auth_sealed ? this.openAuth(row.auth_sealed).token : null);
    const first = await this.freshAuth(ctx, row.chatbot_id, row.id, null);
    if (!first) throw new McpConnectionError('unauthorized', 'Not connected: click Connect');
    const token = this.openAuth(first).token;
    try {
      return await use(token);
    } catch (err) {
      if (!(err instanceof McpConnectionError) || err.code !== 'unauthorized') throw err;
      const again = await this.freshAuth(ctx, row.chatbot_id, row.id, sha256(token));
      if (!again) throw new McpConnectionError('unauthorized', 'The authorization ended: click Connect');
      return use(this.openAuth(again).token);
    }
  }

  /**
   * The server's sealed access token (as McpServerSpec.auth_sealed), refreshed under the row's
   * lock when it is within MCP_OAUTH_REFRESH_MARGIN_SECONDS of its expiry, or when `staleHash` is
   * the hash of the one stored (a server refused it); a token another caller refreshed meanwhile
   * is answered as it is. Null: not connected, or the refresh token was refused (stored as the
   * server's error: Connect again). A failure on the way throws McpConnectionError.
   */
  private async freshAuth(ctx: CallerContext, botId: string, id: string, staleHash: string | null): Promise<string | null> {
    const out = await this.repository.lockedOAuth(ctx.tenantId, botId, id, async (row) => {
      if (row.auth !== 'oauth') return { write: null, result: row.auth_sealed };
      if (!row.auth_sealed || !row.oauth_sealed) return { write: null, result: null };
      const current = this.openAuth(row.auth_sealed);
      const expires = current.type === 'oauth' && current.expires_at ? Date.parse(current.expires_at) : Infinity;
      const refused = staleHash !== null && sha256(current.token) === staleHash;
      if (!refused && expires - this.refreshMarginMs > Date.now()) return { write: null, result: row.auth_sealed };
      const secrets = this.openSecrets(row);
      const { secrets: next, ended } = await this.oauthStep(row, [secrets.tokens?.refresh_token, current.token], (c) => refreshMcpOAuth(c, secrets));
      if (ended) {
        return {
          write: { auth_sealed: null, oauth_sealed: this.box.seal(JSON.stringify(next)), oauth_expires_at: null, error: 'The authorization ended (the refresh token was refused): click Connect' },
          result: null,
        };
      }
      const connection = this.connection(next);
      return { write: connection, result: connection.auth_sealed };
    });
    if (!out) throw new NotFound('MCP server');
    return out.result;
  }

  /** What a connection writes: the access token for chat, the rest for this service only. */
  private connection(secrets: McpOAuthSecrets): Pick<McpServerFields, 'auth_sealed' | 'oauth_sealed' | 'oauth_issuer' | 'oauth_expires_at' | 'error'> {
    const tokens = secrets.tokens!;
    const expires_at = tokens.expires_at ?? null;
    return {
      auth_sealed: this.sealAuth({ type: 'oauth', token: tokens.access_token, expires_at }),
      oauth_sealed: this.box.seal(JSON.stringify(secrets)),
      oauth_issuer: issuerOf(secrets)?.slice(0, 2000) ?? null,
      oauth_expires_at: expires_at ? new Date(expires_at) : null,
      error: null,
    };
  }

  /** One OAuth step through the outbound guard (https, no redirects, the deadline); `secrets` are cut out of any error. */
  private oauthStep<T>(row: McpServerRow, secrets: (string | null | undefined)[], step: (c: McpOAuthStepContext) => Promise<T>): Promise<T> {
    const settings = this.settings(row);
    return withMcpExchange(
      row.url,
      { policy: this.policy, timeoutMs: this.timeoutMs, allowHttp: this.allowHttp, secrets: [...secrets, settings.clientSecret].filter((v): v is string => !!v) },
      (fetchFn) => step({ serverUrl: row.url, settings, fetchFn, allowHttp: this.allowHttp }),
    );
  }

  private settings(row: McpServerRow): McpOAuthSettings {
    return { clientId: row.oauth_client_id, clientSecret: row.oauth_client_secret_sealed ? this.box.open(row.oauth_client_secret_sealed) : null, scope: row.oauth_scope };
  }

  private openSecrets(row: McpServerRow): McpOAuthSecrets {
    return row.oauth_sealed ? (JSON.parse(this.box.open(row.oauth_sealed)) as McpOAuthSecrets) : {};
  }

  /**
   * Connect: discovery, registration (unless the owner gave a client id), PKCE and a state, for
   * the person who asked. Keeps the state's hash, the sealed verifier, redirect URI and person
   * and the expiry with the server (a Connect before is void); answers the authorization URL. A
   * server that cannot be reached or does not speak OAuth is a 400 with the reason.
   */
  async oauthStart(ctx: CallerContext, req: StartMcpOAuthRequest): Promise<McpOAuthStartView> {
    const row = await this.row(ctx, req.botId, req.serverId);
    if (row.auth !== 'oauth') throw new BadRequest('This MCP server does not use OAuth: change its authentication first');
    const state = randomBytes(32).toString('base64url');
    const secrets = this.openSecrets(row);
    let started: Awaited<ReturnType<typeof startMcpOAuth>>;
    try {
      started = await this.oauthStep(row, [], (c) => startMcpOAuth(c, secrets, req.redirectUri, state));
    } catch (err) {
      if (!(err instanceof McpConnectionError)) throw err;
      throw new BadRequest(`The authorization could not be started: ${err.message}`);
    }
    const expiresAt = new Date(Date.now() + MCP_OAUTH_FLOW_TTL_SECONDS * 1000);
    const flow: SealedFlow = { verifier: started.verifier, redirect_uri: req.redirectUri, person_id: req.personId };
    const out = await this.repository.lockedOAuth(ctx.tenantId, req.botId, req.serverId, async (current) => {
      // Changed while we talked to the server: this flow is for what it was.
      if (current.auth !== 'oauth' || current.url !== row.url || current.oauth_client_id !== row.oauth_client_id) throw new DomainError('conflict', 'The MCP server was changed meanwhile: click Connect again');
      return {
        write: {
          oauth_sealed: this.box.seal(JSON.stringify({ ...started.secrets, tokens: this.openSecrets(current).tokens })),
          oauth_issuer: current.auth_sealed ? current.oauth_issuer : (issuerOf(started.secrets)?.slice(0, 2000) ?? null),
          oauth_state_hash: sha256(state),
          oauth_flow_sealed: this.box.seal(JSON.stringify(flow)),
          oauth_flow_expires_at: expiresAt,
        },
        result: null,
      };
    });
    if (!out) throw new NotFound('MCP server');
    return { authorization_url: started.authorizationUrl, expires_at: expiresAt.toISOString() };
  }

  /**
   * The server a callback's state belongs to, when it is live and the person started it: the
   * console then checks the person's role in that workspace before finishing. Anything else is
   * one answer, invalid_token (400), which says nothing of what exists.
   */
  async oauthFlow(req: McpOAuthFlowRequest): Promise<McpOAuthFlowView> {
    const flow = await this.repository.findFlow(sha256(req.state));
    if (!flow?.oauth_flow_sealed || !flow.oauth_flow_expires_at || new Date(flow.oauth_flow_expires_at).getTime() <= Date.now()) throw new DomainError('invalid_token', FLOW_VOID);
    if ((JSON.parse(this.box.open(flow.oauth_flow_sealed)) as SealedFlow).person_id !== req.personId) throw new DomainError('invalid_token', FLOW_VOID);
    return { tenant_id: flow.tenant_id, bot_id: flow.chatbot_id, server_id: flow.id };
  }

  /**
   * The callback: the flow is spent first (single use, whatever follows), then checked (expiry,
   * person), then the code exchanged with its verifier. A refusal by the authorization server or
   * a failed exchange stores nothing (the connection before, if any, stays) and answers
   * `connected: false` with the reason; success stores the sealed tokens and syncs.
   */
  async oauthFinish(ctx: CallerContext, req: FinishMcpOAuthRequest): Promise<McpOAuthFinishView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.botId);
    const row = await this.repository.takeFlow(ctx.tenantId, req.botId, req.serverId, sha256(req.state));
    if (!row?.oauth_flow_sealed || !row.oauth_flow_expires_at || row.auth !== 'oauth') throw new DomainError('invalid_token', FLOW_VOID);
    const flow = JSON.parse(this.box.open(row.oauth_flow_sealed)) as SealedFlow;
    if (new Date(row.oauth_flow_expires_at).getTime() <= Date.now() || flow.person_id !== req.personId) throw new DomainError('invalid_token', FLOW_VOID);
    const refused = (message: string): McpOAuthFinishView => ({ connected: false, message, server: toMcpServerView(row) });
    if (req.error !== undefined || req.code === undefined) return refused(`The authorization server did not authorize the bot (${(req.error ?? 'no code').slice(0, 100)})`);
    const secrets = this.openSecrets(row);
    // RFC 9207: an answer from another authorization server (a mix-up) is refused.
    const metadata = secrets.discovery?.authorizationServerMetadata as Record<string, unknown> | undefined;
    const issuer = metadata?.['issuer'];
    const sendsIss = metadata?.['authorization_response_iss_parameter_supported'] === true;
    if ((req.iss !== undefined || sendsIss) && req.iss !== issuer) return refused('The answer came from another authorization server than the one asked');
    let next: McpOAuthSecrets;
    try {
      next = await this.oauthStep(row, [req.code], (c) => finishMcpOAuth(c, secrets, flow.redirect_uri, req.code!, flow.verifier));
    } catch (err) {
      if (!(err instanceof McpConnectionError)) throw err;
      return refused(`The code could not be exchanged for a token: ${err.message}`);
    }
    const out = await this.repository.lockedOAuth(ctx.tenantId, req.botId, req.serverId, async (current) => {
      if (current.auth !== 'oauth' || current.url !== row.url || current.oauth_client_id !== row.oauth_client_id) return { write: null, result: false };
      return { write: this.connection(next), result: true };
    });
    if (!out) throw new NotFound('MCP server');
    if (!out.result) return refused('The MCP server was changed meanwhile: click Connect again');
    return { connected: true, message: null, server: await this.sync(ctx, req.botId, req.serverId) };
  }

  /**
   * For chat (bots.mcp-server.token): the OAuth access token, sealed as in McpServerSpec, fresh;
   * `stale_hash` names the one a server refused. A failure to refresh is a 503 (chat's call fails).
   */
  async token(ctx: CallerContext, req: McpServerTokenRequest): Promise<McpServerTokenView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.botId);
    try {
      return { auth_sealed: await this.freshAuth(ctx, req.botId, req.serverId, req.stale_hash ?? null) };
    } catch (err) {
      if (err instanceof McpConnectionError) throw new ServiceUnavailable('authorization', err.message);
      throw err;
    }
  }

  /** For chat (bots.action.specs): the bot's servers with their enabled tools, the credentials still sealed. */
  async specs(ctx: CallerContext, botId: string): Promise<McpServerSpec[]> {
    await this.bot(ctx, botId);
    // An OAuth server not connected (any more) has nothing to call with: its tools are not offered.
    const usable = (await this.repository.list(ctx.tenantId, botId)).filter((r) => r.auth !== 'oauth' || r.auth_sealed !== null);
    return usable.map(toMcpServerSpec).filter((s) => s.tools.length > 0);
  }

  private check(issues: ValidationIssue[]): void {
    if (issues.length) throw new ValidationFailed(issues);
  }

  private sealAuth(auth: McpSealedAuth): string {
    return this.box.seal(JSON.stringify(auth));
  }

  private openAuth(sealed: string): McpSealedAuth {
    return JSON.parse(this.box.open(sealed)) as McpSealedAuth;
  }

  /** A second server of the bot with the same name (case-insensitive) is a 409. */
  private async unique<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new DomainError('conflict', 'The bot has an MCP server with this name already');
      throw err;
    }
  }
}

/** `bearer` needs a token (given now, or stored); `none` and `oauth` take none. */
function authIssues(auth: McpAuthKind, tokenGiven: boolean, tokenStored: boolean): ValidationIssue[] {
  if (auth !== 'bearer' && tokenGiven) return [{ code: 'invalid_value', path: ['body', 'token'], message: 'token goes with auth: bearer' }];
  if (auth === 'bearer' && !tokenGiven && !tokenStored) return [{ code: 'required', path: ['body', 'token'], message: 'auth: bearer needs a token' }];
  return [];
}

/** The `oauth_*` members go with `auth: oauth`; a client secret with a client id (given now, or kept). */
function oauthIssues(auth: McpAuthKind, req: { oauth_client_id?: string | null; oauth_client_secret?: string; oauth_scope?: string | null }, storedClientId: string | null): ValidationIssue[] {
  const given = (['oauth_client_id', 'oauth_client_secret', 'oauth_scope'] as const).filter((k) => req[k] !== undefined);
  if (auth !== 'oauth') return given.map((k) => ({ code: 'invalid_value', path: ['body', k], message: `${k} goes with auth: oauth` }));
  const clientId = req.oauth_client_id !== undefined ? req.oauth_client_id : storedClientId;
  if (req.oauth_client_secret !== undefined && !clientId) return [{ code: 'required', path: ['body', 'oauth_client_id'], message: 'oauth_client_secret goes with oauth_client_id' }];
  return [];
}
