import { randomBytes } from 'node:crypto';
import { type OAuthClientProvider, type OAuthDiscoveryState, auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpConnectionError } from '@sa/actions';

/*
 * OAuth as a client of a remote MCP server (issue 34, item 3), the MCP authorization way, with
 * the official SDK's `auth()`: the authorization server is discovered from the MCP server
 * (RFC 9728 protected resource metadata → RFC 8414 / OIDC metadata), the bot registers itself
 * (RFC 7591) unless the owner gave a client id, and the authorization code comes with PKCE (S256)
 * and a state. This file holds the SDK's OAuthClientProvider over what one step has in memory;
 * the service stores what it saved (sealed) and runs each step through the outbound guard
 * (withMcpExchange). Three steps: `start` (discovery, registration, the authorization URL),
 * `finish` (the code exchanged) and `refresh` (the refresh token spent for a new access token).
 */

/** What only the bots service reads of a connection (sealed in `oauth_sealed`). */
export interface McpOAuthSecrets {
  /** The redirect URI of the last Connect: a refresh presents the same client. */
  redirect_uri?: string;
  /** The client this bot registered (RFC 7591), stamped by the SDK with its authorization server. */
  registered?: OAuthClientInformationMixed;
  /** The tokens as the SDK saved them (with `issuer`), and when the access token expires. */
  tokens?: OAuthTokens & { expires_at?: string | null };
  /** The discovered authorization server, its metadata and the resource's (no discovery on refresh). */
  discovery?: OAuthDiscoveryState;
}

/** The owner's settings of a server. */
export interface McpOAuthSettings {
  clientId: string | null;
  clientSecret: string | null;
  scope: string | null;
}

type Step = 'start' | 'finish' | 'refresh';

/**
 * The SDK's provider for one step. It never redirects anyone: `start` keeps the authorization
 * URL for the console to send the browser to; any other step that ends there means the
 * authorization is over (the bot must be connected again).
 */
class StepProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  verifier: string | null;
  tokensInvalidated = false;

  constructor(
    private readonly step: Step,
    private readonly settings: McpOAuthSettings,
    readonly secrets: McpOAuthSecrets,
    private readonly redirectUri: string,
    private readonly stateValue: string | null,
    verifier: string | null,
  ) {
    this.verifier = verifier;
  }

  get redirectUrl(): string {
    return this.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Support Agent',
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client with PKCE: there is no secret to keep for a registered client.
      token_endpoint_auth_method: 'none',
      ...(this.settings.scope ? { scope: this.settings.scope } : {}),
    };
  }

  state(): string {
    // A refresh that ends at a new authorization builds a URL nobody is sent to: any state will do.
    return this.stateValue ?? randomBytes(32).toString('base64url');
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.settings.clientId) return { client_id: this.settings.clientId, ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}) };
    const registered = this.secrets.registered;
    // A registration for another redirect URI (the console moved) is not this client: register again.
    if (registered && 'redirect_uris' in registered && Array.isArray(registered.redirect_uris) && !registered.redirect_uris.map(String).includes(this.redirectUri)) return undefined;
    return registered;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // The owner's client id stays the owner's: only a registration is kept.
    if (!this.settings.clientId) this.secrets.registered = info;
  }

  tokens(): OAuthTokens | undefined {
    // A Connect asks the person again, even with tokens stored (a reconnection, another account).
    return this.step === 'start' ? undefined : this.secrets.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    const expires_at = typeof tokens.expires_in === 'number' ? new Date(Date.now() + tokens.expires_in * 1000).toISOString() : null;
    this.secrets.tokens = { ...tokens, expires_at };
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier for this step');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') delete this.secrets.registered;
    if (scope === 'all' || scope === 'tokens') {
      delete this.secrets.tokens;
      this.tokensInvalidated = true;
    }
    if (scope === 'all' || scope === 'discovery') delete this.secrets.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.secrets.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.secrets.discovery;
  }
}

/** What a step needs besides the provider's state: the server and the exchange's guarded fetch. */
export interface McpOAuthStepContext {
  serverUrl: string;
  settings: McpOAuthSettings;
  fetchFn: typeof fetch;
  /** Tests against local servers: an http authorization endpoint is sent to the browser as well. */
  allowHttp: boolean;
}

/** The authorization server's issuer as discovered (RFC 8414 `issuer`), else the URL it was found at. */
export function issuerOf(secrets: McpOAuthSecrets): string | null {
  const d = secrets.discovery;
  return (d?.authorizationServerMetadata?.issuer as string | undefined) ?? d?.authorizationServerUrl ?? null;
}

/**
 * Starts a Connect: discovery, a registration when the bot has no client for this redirect URI,
 * a PKCE verifier and the authorization URL with `state`. Returns the URL, the verifier (the
 * caller seals it with the flow) and the secrets to store (registration and discovery).
 */
export async function startMcpOAuth(
  c: McpOAuthStepContext,
  secrets: McpOAuthSecrets,
  redirectUri: string,
  state: string,
): Promise<{ authorizationUrl: string; verifier: string; secrets: McpOAuthSecrets }> {
  const next: McpOAuthSecrets = { ...secrets, redirect_uri: redirectUri };
  const provider = new StepProvider('start', c.settings, next, redirectUri, state, null);
  const result = await auth(provider, { serverUrl: c.serverUrl, scope: c.settings.scope ?? undefined, fetchFn: c.fetchFn });
  if (result !== 'REDIRECT' || !provider.authorizationUrl || !provider.verifier) throw new McpConnectionError('protocol', 'the authorization server did not start an authorization');
  const url = provider.authorizationUrl;
  if (url.protocol !== 'https:' && !(c.allowHttp && url.protocol === 'http:')) throw new McpConnectionError('blocked', 'the authorization endpoint is not https');
  return { authorizationUrl: url.toString(), verifier: provider.verifier, secrets: next };
}

/** Exchanges the callback's code (with the flow's verifier) for tokens; the secrets to store. */
export async function finishMcpOAuth(c: McpOAuthStepContext, secrets: McpOAuthSecrets, redirectUri: string, code: string, verifier: string): Promise<McpOAuthSecrets> {
  const next: McpOAuthSecrets = { ...secrets, redirect_uri: redirectUri };
  delete next.tokens;
  const provider = new StepProvider('finish', c.settings, next, redirectUri, null, verifier);
  const result = await auth(provider, { serverUrl: c.serverUrl, authorizationCode: code, scope: c.settings.scope ?? undefined, fetchFn: c.fetchFn });
  if (result !== 'AUTHORIZED' || !(next.tokens as McpOAuthSecrets['tokens'])?.access_token) throw new McpConnectionError('unauthorized', 'the authorization server gave no token');
  return next;
}

/**
 * Spends the refresh token for a new access token. `ended`: the authorization server refused the
 * refresh token (or there is none): the bot must be connected again. A failure on the way (the
 * network, the server's 5xx) throws and keeps what is stored.
 */
export async function refreshMcpOAuth(c: McpOAuthStepContext, secrets: McpOAuthSecrets): Promise<{ secrets: McpOAuthSecrets; ended: boolean }> {
  const redirectUri = secrets.redirect_uri;
  if (!secrets.tokens?.refresh_token || !redirectUri) return { secrets: { ...secrets, tokens: undefined }, ended: true };
  const next: McpOAuthSecrets = { ...secrets };
  const provider = new StepProvider('refresh', c.settings, next, redirectUri, null, null);
  const before = next.tokens;
  const result = await auth(provider, { serverUrl: c.serverUrl, scope: c.settings.scope ?? undefined, fetchFn: c.fetchFn });
  if (result === 'AUTHORIZED' && next.tokens && next.tokens !== before) return { secrets: next, ended: false };
  // The SDK ends at a new authorization when the refresh failed: refused (it dropped the tokens) or not reached.
  if (provider.tokensInvalidated) return { secrets: { ...next, tokens: undefined }, ended: true };
  throw new McpConnectionError('network', 'the access token could not be refreshed (the authorization server did not answer as expected); try again');
}
