import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsISO8601, IsObject, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { ACTION_HEADER_VALUE_PATTERN } from './actions';
import { BotParams } from './console-workspace';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, NotBlank } from './validation';

/**
 * Remote MCP servers as sources of a bot's actions (issue 34, item 3). An owner adds a server's
 * URL (https) and how the bot authenticates: none, a bearer token, or OAuth as a client (the MCP
 * authorization way: the owner clicks Connect, approves at the server's authorization server and
 * comes back; see docs/decisions/actions.md "Remote MCP servers"). "sync" connects with the
 * official MCP client SDK through the outbound guard, lists the server's tools and stores them,
 * each with the flags of an action (confirm, verified only, on). Tokens are sealed as they arrive
 * (SecretBox, as action header values) and never returned; chat gets the bearer or the OAuth
 * access token still sealed (bots.action.specs → `mcp_servers`) and opens it for the call only;
 * an OAuth refresh token never leaves the bots service.
 */
export const MCP_AUTH_KINDS = ['none', 'bearer', 'oauth'] as const;
export type McpAuthKind = (typeof MCP_AUTH_KINDS)[number];
/** What an owner may choose. */
export const MCP_AUTH_CHOICES = MCP_AUTH_KINDS;
export type McpAuthChoice = McpAuthKind;
/** A started OAuth authorization (Connect) must come back within this long; then it is void. */
export const MCP_OAUTH_FLOW_TTL_SECONDS = 600;
/** The console's route the authorization server sends the browser back to (the redirect URI, on the console's public URL). */
export const MCP_OAUTH_CALLBACK_PATH = '/api/oauth/mcp-callback';
export const MCP_OAUTH_CLIENT_ID_MAX = 500;
export const MCP_OAUTH_SCOPE_MAX = 1000;
/** An OAuth access token is refreshed this long before it expires. */
export const MCP_OAUTH_REFRESH_MARGIN_SECONDS = 60;
/** The console waits this long for an OAuth step (discovery and registration, or the code exchange and a sync). */
export const MCP_OAUTH_RPC_TIMEOUT_MS = 30_000;
/** A server's name: short, the prefix of its tools' names as the model sees them (`shop_order_status`). */
export const MCP_SERVER_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9-]{0,19}$/;
export const MCP_SERVER_URL_MAX = 2000;
/** https, a host, no white space. The service parses it further (no credentials). */
export const MCP_SERVER_URL_PATTERN = /^https:\/\/[^/?#\s]+(?:[/?#]\S*)?$/i;
export const MCP_TOKEN_MAX = 4000;
/** Servers per bot; their tools have caps of their own (not the 20 actions of a bot). */
export const MCP_SERVERS_PER_BOT_MAX = 5;
/** Tools kept of one server; more are listed in `skipped`. */
export const MCP_TOOLS_PER_SERVER_MAX = 50;
/** Tools of MCP servers a bot offers at once (on, across its servers); new ones past it are stored off. */
export const MCP_ENABLED_TOOLS_PER_BOT_MAX = 20;
/** A tool name as the MCP specification allows it (SEP-986: 1 to 128 of A-Z a-z 0-9 _ - . /). */
export const MCP_TOOL_NAME_MAX = 128;
/** A tool's description kept for the model; a longer one is cut. */
export const MCP_TOOL_DESCRIPTION_MAX = 1000;
/** One connection (connect, list or call) may take this long. */
export const MCP_CALL_TIMEOUT_MS = 10_000;
/** The console waits this long for a sync: the connection's own 10 s and some room. */
export const MCP_SYNC_RPC_TIMEOUT_MS = 20_000;
/** Characters a tool's name may have in the name the model sees; others become `_`. */
const MODEL_NAME_UNSAFE = /[^a-zA-Z0-9_-]/g;

/**
 * The tool name the model sees for a server's tool: `<server name>_<tool name>`, characters a
 * provider refuses made `_`, cut to 64 (a valid tool name for OpenAI and Anthropic alike, as an
 * action's name is). Chat makes names unique across a bot's tools when two still meet.
 */
export function mcpToolName(serverName: string, toolName: string): string {
  return `${serverName}_${toolName.replace(MODEL_NAME_UNSAFE, '_')}`.slice(0, 64);
}

@Doc({ name: 'McpTool', description: "A tool of an MCP server, as listed by its last sync, with the flags of an action. Its name, description and schema are the server's." })
export class McpToolView {
  @Doc("The tool's name on the server.") @IsString() name: string;
  @Doc('The name the model sees: the server name, `_`, the tool name (made safe, at most 64 characters).') @IsString() model_name: string;
  @Doc("The server's description, for the model (cut to 1000 characters). Not ours: render it as text.") @IsString() description: string;
  @Doc("The tool's input as a JSON Schema object, as the server declares it.") @IsObject() input_schema: Record<string, unknown>;
  @Doc('Whether the visitor confirms each call before it runs. A new tool: true, unless the server marks it read-only (`readOnlyHint`).') @IsBoolean() confirm: boolean;
  @Doc('Whether only a verified visitor may use it. A new tool: false.') @IsBoolean() verified_only: boolean;
  @Doc(`Off: the bot does not offer it. A new tool is on while the bot offers fewer than ${MCP_ENABLED_TOOLS_PER_BOT_MAX} MCP tools.`) @IsBoolean() enabled: boolean;
}

@Doc({ name: 'McpSkippedTool', description: 'A tool the server listed that the last sync did not keep, and why.' })
export class McpSkippedToolView {
  @IsString() name: string;
  @Doc('Why, for people.') @IsString() reason: string;
}

@Doc({ name: 'McpOAuth', description: "How the bot signs in to an MCP server with `auth: oauth`. Secrets (client secret, tokens) are write-only or never shown." })
export class McpOAuthView {
  @Doc("The client id the owner gave; null: the bot registers itself with the authorization server (dynamic client registration, RFC 7591) when it connects.") @Nullable() @IsString() client_id: string | null;
  @Doc('Whether a client secret is stored (with an owner-given client id).') @IsBoolean() has_client_secret: boolean;
  @Doc("The scope asked for; null: the server's advertised scopes (its protected resource metadata).") @Nullable() @IsString() scope: string | null;
  @Doc('The authorization server found at the last Connect (RFC 9728 → RFC 8414); null: never connected.') @Nullable() @IsString() authorization_server: string | null;
  @Doc('When the stored access token expires (it is refreshed before, with the refresh token); null: not connected, or no expiry given.') @Nullable() @IsISO8601() token_expires_at: string | null;
}

@Doc({ name: 'McpServer', description: 'A remote MCP server whose tools are actions of the bot. Tokens are write-only: `has_token` says whether one is stored (with OAuth: whether the bot is connected).' })
export class McpServerView {
  @IsUUID() id: string;
  @IsUUID() bot_id: string;
  @Doc("The server's short name, the prefix of its tools' names for the model; unique per bot (case-insensitive).") @IsString() name: string;
  @Doc("The server's endpoint (Streamable HTTP, or the older HTTP+SSE).") @IsString() url: string;
  @Doc('How the bot authenticates: none, a bearer token (sent as `Authorization: Bearer …`), or OAuth as a client (Connect in the console).') @IsIn(MCP_AUTH_KINDS) auth: McpAuthKind;
  @Doc('Whether a token is stored (OAuth: the bot is connected). The token itself is never returned.') @IsBoolean() has_token: boolean;
  @Doc('With `auth: oauth`: its settings and state; null otherwise.') @Nullable() @Nested(() => McpOAuthView) oauth: McpOAuthView | null;
  @Doc('The tools of the last successful sync, in the order the server listed them.') @IsArray() @Nested(() => McpToolView) tools: McpToolView[];
  @Doc('Tools the last successful sync left out (a schema not accepted, a name too long, past the cap).') @IsArray() @Nested(() => McpSkippedToolView) skipped: McpSkippedToolView[];
  @Doc('The last successful sync; null: never synced.') @Nullable() @IsISO8601() last_synced_at: string | null;
  @Doc('Why the last sync failed (blocked, timeout, refused, …); null: it worked or none ran. The tools of the sync before stay.') @Nullable() @IsString() error: string | null;
  @IsISO8601() created_at: string;
  @IsISO8601() updated_at: string;
}

const NAME_DOC = "1 to 20 letters, digits or `-`, starting with a letter: the prefix of the server's tools for the model (`shop` → `shop_order_status`). Unique per bot, case-insensitive (409).";
const URL_DOC = `The server's MCP endpoint: https only, up to ${MCP_SERVER_URL_MAX} characters, no credentials (the token goes in \`token\`).`;
const TOKEN_DOC = `With \`auth: bearer\`: the token, 1 to ${MCP_TOKEN_MAX} characters of one line. Write-only: stored encrypted, never shown again.`;
const CLIENT_ID_DOC = `With \`auth: oauth\`: a client id registered for this bot at the server's authorization server (redirect URI: the console's public URL + \`${MCP_OAUTH_CALLBACK_PATH}\`), up to ${MCP_OAUTH_CLIENT_ID_MAX} characters. Left out: the bot registers itself (dynamic client registration) when it connects.`;
const CLIENT_SECRET_DOC = `With \`oauth_client_id\`: its secret, when the authorization server gave one (a confidential client). Write-only: stored encrypted, never shown again.`;
const SCOPE_DOC = `With \`auth: oauth\`: the scope to ask for (space-separated), up to ${MCP_OAUTH_SCOPE_MAX} characters. Left out: the scopes the server advertises.`;

@Doc({ name: 'McpServerCreate', description: `A new MCP server. Unknown members are rejected (400). A bot has at most ${MCP_SERVERS_PER_BOT_MAX} (409). Its tools come with a sync.` })
export class CreateMcpServerBody {
  @Doc(NAME_DOC) @IsString() @Matches(MCP_SERVER_NAME_PATTERN) name: string;
  @Doc(URL_DOC) @IsString() @CharLength(1, MCP_SERVER_URL_MAX) @Matches(MCP_SERVER_URL_PATTERN) url: string;
  @Doc({ description: '`bearer` needs `token`; `none` takes none; `oauth` takes the `oauth_*` members and is connected afterwards (Connect). Left out: `bearer` with a token, `none` without.' }) @IsOptional() @IsIn(MCP_AUTH_CHOICES) auth?: McpAuthChoice;
  @Doc(TOKEN_DOC) @IsOptional() @IsString() @CharLength(1, MCP_TOKEN_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) token?: string;
  @Doc(CLIENT_ID_DOC) @IsOptional() @IsString() @CharLength(1, MCP_OAUTH_CLIENT_ID_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) oauth_client_id?: string;
  @Doc(CLIENT_SECRET_DOC) @IsOptional() @IsString() @CharLength(1, MCP_TOKEN_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) oauth_client_secret?: string;
  @Doc(SCOPE_DOC) @IsOptional() @IsString() @CharLength(1, MCP_OAUTH_SCOPE_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) oauth_scope?: string;
}

@Doc({ name: 'McpToolChange', description: "A tool's flags to change; members left out stay as they are. Unknown members are rejected (400)." })
export class McpToolChange {
  @Doc("The tool's name on the server (400 when the last sync did not list it).") @IsString() @CharLength(1, MCP_TOOL_NAME_MAX) name: string;
  @IsOptional() @IsBoolean() confirm?: boolean;
  @IsOptional() @IsBoolean() verified_only?: boolean;
  @Doc(`On past ${MCP_ENABLED_TOOLS_PER_BOT_MAX} MCP tools of the bot: 409.`) @IsOptional() @IsBoolean() enabled?: boolean;
}

@Doc({
  name: 'McpServerUpdate',
  description:
    'A change; members left out stay as they are. A URL of another origin needs the token given again (400 otherwise): a stored token only goes where it was given for; with OAuth, it disconnects (Connect again). `auth: none` removes the token; a change of `auth` or of the OAuth client disconnects. Unknown members are rejected (400).',
})
export class UpdateMcpServerBody {
  @Doc(NAME_DOC) @IsOptional() @IsString() @Matches(MCP_SERVER_NAME_PATTERN) name?: string;
  @Doc(URL_DOC) @IsOptional() @IsString() @CharLength(1, MCP_SERVER_URL_MAX) @Matches(MCP_SERVER_URL_PATTERN) url?: string;
  @IsOptional() @IsIn(MCP_AUTH_CHOICES) auth?: McpAuthChoice;
  @Doc(`${TOKEN_DOC} Left out: the stored one is kept.`) @IsOptional() @IsString() @CharLength(1, MCP_TOKEN_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) token?: string;
  @Doc(`${CLIENT_ID_DOC} null: register dynamically again (forgets the secret).`) @IsOptional() @Nullable() @IsString() @CharLength(1, MCP_OAUTH_CLIENT_ID_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) oauth_client_id?: string | null;
  @Doc(`${CLIENT_SECRET_DOC} Left out: the stored one is kept (a new client id without a secret forgets it).`) @IsOptional() @IsString() @CharLength(1, MCP_TOKEN_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) oauth_client_secret?: string;
  @Doc(`${SCOPE_DOC} null: the advertised ones.`) @IsOptional() @Nullable() @IsString() @CharLength(1, MCP_OAUTH_SCOPE_MAX) @NotBlank() @Matches(ACTION_HEADER_VALUE_PATTERN) oauth_scope?: string | null;
  @Doc('Flags of tools of the last sync.') @IsOptional() @IsArray() @ArrayMaxSize(MCP_TOOLS_PER_SERVER_MAX) @Nested(() => McpToolChange) tools?: McpToolChange[];
}

/** A tool of an MCP server as chat offers it: on, with its flags. */
export interface McpToolSpec {
  name: string;
  /** The name the model sees (mcpToolName); chat still makes it unique across the bot's tools. */
  model_name: string;
  description: string;
  input_schema: Record<string, unknown>;
  confirm: boolean;
  verified_only: boolean;
}

/**
 * An MCP server as chat calls it (bots.action.specs → `mcp_servers`): its address, its
 * credentials still sealed (SecretBox: a JSON object `{"type":"bearer","token":…}`, or with OAuth
 * `{"type":"oauth","token":<access token>,"expires_at":<ISO or null>}`; null: none or not
 * connected), and its enabled tools. Chat opens the seal for the call only; an OAuth access token
 * that expired or was refused, chat trades for a fresh one (bots.mcp-server.token).
 */
export interface McpServerSpec {
  id: string;
  name: string;
  url: string;
  auth_sealed: string | null;
  tools: McpToolSpec[];
  /** Changes whenever the server or its tools do: a cache key. */
  updated_at: string;
}

/** Path parameters of the console's …/bots/{botId}/mcp-servers/{serverId} routes. */
export class McpServerParams extends BotParams {
  @IsUUID('all') serverId: string;
}

/** bots.mcp-server.list. */
export class McpServersRequest {
  @IsUUID() botId: string;
}
/** bots.mcp-server.delete, bots.mcp-server.sync. */
export class McpServerIdRequest {
  @IsUUID() botId: string;
  @IsUUID() serverId: string;
}
export class CreateMcpServerRequest extends CreateMcpServerBody {
  @IsUUID() botId: string;
}
export class UpdateMcpServerRequest extends UpdateMcpServerBody {
  @IsUUID() botId: string;
  @IsUUID() serverId: string;
}

/** The sealed credentials as chat opens them (McpServerSpec.auth_sealed). */
export type McpSealedAuth = { type: 'bearer'; token: string } | { type: 'oauth'; token: string; expires_at: string | null };

/** bots.mcp-server.oauth-start: the console starts a Connect for the signed-in person. */
export class StartMcpOAuthRequest {
  @IsUUID() botId: string;
  @IsUUID() serverId: string;
  /** The console's callback (its public URL + MCP_OAUTH_CALLBACK_PATH). */
  @IsString() @CharLength(1, 2000) @Matches(/^https?:\/\/[^\s#]+$/) redirectUri: string;
  /** Who started it: only they may finish it. */
  @IsUUID() personId: string;
}
@Doc({ name: 'McpOAuthStart', description: 'A started Connect: send the browser to `authorization_url` before `expires_at`.' })
export class McpOAuthStartView {
  @Doc("The authorization server's page, with the bot's client id, a PKCE challenge (S256) and a one-time state.") @IsString() authorization_url: string;
  @IsISO8601() expires_at: string;
}

/** bots.mcp-server.oauth-flow: which server a callback's state belongs to (no tenant yet: the state's hash is the key). */
export class McpOAuthFlowRequest {
  @IsString() @CharLength(1, 200) state: string;
  @IsUUID() personId: string;
}
export interface McpOAuthFlowView {
  tenant_id: string;
  bot_id: string;
  server_id: string;
}

/** bots.mcp-server.oauth-finish: the callback's answer, for the server the flow named. */
export class FinishMcpOAuthRequest {
  @IsUUID() botId: string;
  @IsUUID() serverId: string;
  @IsString() @CharLength(1, 200) state: string;
  @IsUUID() personId: string;
  @IsOptional() @IsString() @CharLength(1, 4000) code?: string;
  /** The authorization server's `error` (access_denied …) instead of a code. */
  @IsOptional() @IsString() @CharLength(1, 200) error?: string;
  /** RFC 9207: the issuer of the answer, when the authorization server sends it. */
  @IsOptional() @IsString() @CharLength(1, 2000) iss?: string;
}
export interface McpOAuthFinishView {
  /** Connected; false: the server refused or the exchange failed (`message` says why), nothing stored. */
  connected: boolean;
  message: string | null;
  server: McpServerView;
}

/** bots.mcp-server.token (chat): the OAuth access token, fresh; `stale_hash` names the one that expired or was refused. */
export class McpServerTokenRequest {
  @IsUUID() botId: string;
  @IsUUID() serverId: string;
  /** SHA-256 (hex) of the access token chat used: refreshed unless the stored one is already another. */
  @IsOptional() @IsString() @Matches(/^[0-9a-f]{64}$/) stale_hash?: string;
}
export interface McpServerTokenView {
  /** As McpServerSpec.auth_sealed; null: not connected (any more). */
  auth_sealed: string | null;
}
