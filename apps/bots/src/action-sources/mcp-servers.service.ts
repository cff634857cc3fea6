import { Inject, Injectable, Optional } from '@nestjs/common';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import {
  CallerContext,
  CreateMcpServerRequest,
  MCP_ENABLED_TOOLS_PER_BOT_MAX,
  MCP_SERVERS_PER_BOT_MAX,
  McpAuthKind,
  McpServerSpec,
  McpServerView,
  UpdateMcpServerRequest,
  ValidationIssue,
} from '@sa/contracts';
import { DomainError, NotFound, ValidationFailed } from '@sa/errors';
import type { OutboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
import { ACTION_OUTBOUND_POLICY } from '../actions/actions.service';
import { WIDGET_SECRET_BOX } from '../widget/widget-settings.service';
import { type McpConnectOptions, McpConnectionError, listMcpTools } from './mcp-connection';
import { type ListedTool, applyToolChanges, mergeTools, originOf, urlIssues } from './mcp-server-rules';
import { McpServerFields, McpServerRow, McpServersRepository, toMcpServerSpec, toMcpServerView } from './mcp-servers.repository';

/** Options of the MCP sources for tests: a local server over http, a shorter deadline. Never set by the app. */
export const MCP_SOURCE_OPTIONS = Symbol('MCP_SOURCE_OPTIONS');
export interface McpSourceOptions {
  allowHttp?: boolean;
  timeoutMs?: number;
}
/** How a sync lists a server's tools (listMcpTools; tests may count the calls). */
export type McpToolLister = (url: string, opts: McpConnectOptions) => Promise<ListedTool[]>;

/** The sealed credentials: one JSON object, so OAuth can add members later. */
interface SealedAuth {
  type: 'bearer';
  token: string;
}

const TOKEN_MOVED = 'Give the token again with a new address: a stored token is never sent to another address';

/**
 * A bot's remote MCP servers (issue 34, item 3). The token is sealed as it arrives and leaves
 * this service only sealed (bots.action.specs, for chat) or not at all; a sync opens it in memory
 * for the one connection. A sync is the only thing that connects: through the outbound guard,
 * 10 s, no redirects; its failure is stored as the server's `error` (the tools of the sync before
 * stay), never an error of the RPC. The console checks the caller's role and writes the audit log.
 */
@Injectable()
export class McpServersService {
  private readonly allowHttp: boolean;
  private readonly timeoutMs: number | undefined;
  private readonly lister: McpToolLister;

  constructor(
    private readonly repository: McpServersRepository,
    @Inject(WIDGET_SECRET_BOX) private readonly box: SecretBox,
    @Inject(ACTION_OUTBOUND_POLICY) private readonly policy: OutboundPolicy,
    @Optional() @Inject(MCP_SOURCE_OPTIONS) options?: McpSourceOptions & { lister?: McpToolLister },
  ) {
    this.allowHttp = options?.allowHttp ?? false;
    this.timeoutMs = options?.timeoutMs;
    this.lister = options?.lister ?? listMcpTools;
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
    const issues = [...urlIssues(req.url, this.allowHttp), ...authIssues(auth, req.token !== undefined, false)];
    this.check(issues);
    const fields: McpServerFields = {
      name: req.name,
      url: req.url,
      auth,
      auth_sealed: auth === 'bearer' ? this.seal(req.token!) : null,
      tools: [],
      skipped: [],
      last_synced_at: null,
      error: null,
    };
    const id = await this.unique(() => this.repository.insert(ctx.tenantId, req.botId, fields, MCP_SERVERS_PER_BOT_MAX));
    if (id === undefined) throw new NotFound('Bot');
    if (id === null) throw new DomainError('conflict', `A bot has at most ${MCP_SERVERS_PER_BOT_MAX} MCP servers`);
    return this.get(ctx, req.botId, id);
  }

  /**
   * A change of the name, the address, the credentials or tools' flags. A new address of another
   * origin needs the token again while one is stored (400), and forgets the tools (they were
   * another server's): sync again. Turning tools on past the bot's cap is a 409.
   */
  async update(ctx: CallerContext, req: UpdateMcpServerRequest): Promise<McpServerView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.botId);
    const changed = await this.unique(() =>
      this.repository.change(ctx.tenantId, req.botId, req.serverId, (current, enabledElsewhere) => {
        const url = req.url ?? current.url;
        const auth: McpAuthKind = req.auth ?? (req.token !== undefined ? 'bearer' : current.auth);
        const hasStored = current.auth_sealed !== null && auth === current.auth;
        const issues: ValidationIssue[] = [...(req.url !== undefined ? urlIssues(url, this.allowHttp) : []), ...authIssues(auth, req.token !== undefined, hasStored)];
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
        return {
          name: req.name ?? current.name,
          url,
          auth,
          auth_sealed: auth === 'none' ? null : req.token !== undefined ? this.seal(req.token) : current.auth_sealed,
          // Another address is another server: its tools come with the next sync.
          tools: urlChanged ? [] : tools,
          skipped: urlChanged ? [] : current.skipped,
          last_synced_at: urlChanged ? null : current.last_synced_at,
          error: urlChanged ? null : current.error,
        };
      }),
    );
    if (!changed) throw new NotFound('MCP server');
    return this.get(ctx, req.botId, req.serverId);
  }

  /** Deletes a server; answers it as it was (the console's audit entry names it). */
  async delete(ctx: CallerContext, botId: string, id: string): Promise<McpServerView> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const row = await this.repository.delete(ctx.tenantId, botId, id);
    if (!row) throw new NotFound('MCP server');
    return toMcpServerView(row);
  }

  /**
   * Connects to the server (the token opened for this connection only), lists its tools and
   * merges them into the stored ones under the bot's lock. A failure is stored as `error` with
   * the tools of the sync before; the answer is the server as stored either way.
   */
  async sync(ctx: CallerContext, botId: string, id: string): Promise<McpServerView> {
    const row = await this.row(ctx, botId, id);
    let listed: ListedTool[] | null = null;
    let error: string | null = null;
    try {
      listed = await this.lister(row.url, { policy: this.policy, token: this.token(row.auth_sealed), timeoutMs: this.timeoutMs, allowHttp: this.allowHttp });
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

  /** For chat (bots.action.specs): the bot's servers with their enabled tools, the credentials still sealed. */
  async specs(ctx: CallerContext, botId: string): Promise<McpServerSpec[]> {
    await this.bot(ctx, botId);
    return (await this.repository.list(ctx.tenantId, botId)).map(toMcpServerSpec).filter((s) => s.tools.length > 0);
  }

  private check(issues: ValidationIssue[]): void {
    if (issues.length) throw new ValidationFailed(issues);
  }

  private seal(token: string): string {
    const auth: SealedAuth = { type: 'bearer', token };
    return this.box.seal(JSON.stringify(auth));
  }

  private token(sealed: string | null): string | null {
    return sealed ? (JSON.parse(this.box.open(sealed)) as SealedAuth).token : null;
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

/** `bearer` needs a token (given now, or stored); `none` takes none. */
function authIssues(auth: McpAuthKind, tokenGiven: boolean, tokenStored: boolean): ValidationIssue[] {
  if (auth === 'none' && tokenGiven) return [{ code: 'invalid_value', path: ['body', 'token'], message: 'token goes with auth: bearer' }];
  if (auth === 'bearer' && !tokenGiven && !tokenStored) return [{ code: 'required', path: ['body', 'token'], message: 'auth: bearer needs a token' }];
  if (auth === 'oauth') return [{ code: 'invalid_value', path: ['body', 'auth'], message: 'OAuth is not offered yet: use a bearer token' }];
  return [];
}
