import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { SCOPES, plainJsonIssue } from '@sa/contracts';
import { redirectUrisRefusal } from './redirect-uri';
import { GuardError, guardedFetch, outboundPolicy } from '@sa/net-guard';
import type { Provider } from 'oidc-provider';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig, normaliseResource } from '../config/console.config';
import { FailureCounter } from '../session/sign-in-throttle';
import { failureCounter } from '../session/sign-in-throttle.provider';
import { PgOauthAdapter, artifactHash, pruneOauthArtifacts } from './oauth-adapter';

/** Paths oidc-provider answers (everything under /oauth except the console's consent page). */
export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const isOauthPath = (path: string): boolean =>
  path === OAUTH_METADATA_PATH || ((path === '/oauth' || path.startsWith('/oauth/')) && !path.startsWith('/oauth/consent'));

/** The console API of one interaction (the consent page reads and answers it there). */
export const interactionApiPath = (uid: string): string => `/api/oauth/interactions/${uid}`;

const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  // Not enabled as features, but every route needs a path: kept under /oauth.
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  challenge: '/oauth/challenge',
  backchannel_authentication: '/oauth/backchannel',
};

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The MCP authorization server: oidc-provider (OpenID certified; RFC 6749, 7591, 7009, 8414, 8707,
 * 9207) on the console's origin, storage in people.oauth_artifacts. Built once at start; its Koa
 * callback answers /oauth/* and /.well-known/oauth-authorization-server (see mountOauth).
 */
@Injectable()
export class OauthServer implements OnModuleInit, BeforeApplicationShutdown {
  provider!: Provider;
  readonly resource: string;
  readonly issuer: string;
  private readonly registrations: FailureCounter;
  private sessionNotFound?: new (...args: any[]) => Error; // eslint-disable-line @typescript-eslint/no-explicit-any
  private readonly cimdCache = new Map<string, { properties: Record<string, unknown>; until: number }>();
  private pruneTimer?: NodeJS.Timeout;

  constructor(
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
    @Inject(getDataSourceToken()) private readonly ds: DataSource,
  ) {
    this.resource = config.mcpResourceUrl;
    this.issuer = config.publicUrl;
    this.registrations = failureCounter(config, logger, config.oauthDcrWindowSeconds);
  }

  async onModuleInit(): Promise<void> {
    // ESM-only package, loaded from this CommonJS build with a dynamic import.
    const mod = (await import('oidc-provider')) as unknown as typeof import('oidc-provider');
    const { errors } = mod;
    const Ctor = mod.default;
    const config = this.config;
    const resource = this.resource;
    const adapterOptions = {
      refreshGraceSeconds: config.oauthRefreshGraceSeconds,
      dcrClientTtlSeconds: config.oauthDcrClientTtlSeconds,
      metadataDocument: (id: string) => this.metadataDocument(id),
    };
    const ds = this.ds;
    // Given in the environment, or shared by every replica through the database (the first writes them).
    const jwks = config.oauthJwks
      ? JSON.parse(config.oauthJwks)
      : await sharedKey(ds, 'jwks', () => ({ keys: [generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })] }));
    const cookieKeys: string[] = config.oauthCookieKeys
      ? config.oauthCookieKeys.split(',').map((k) => k.trim())
      : await sharedKey(ds, 'cookie_keys', () => [randomBytes(32).toString('base64url')]);
    const secure = new URL(config.publicUrl).protocol === 'https:';
    const shortCookie = { signed: true, secure, httpOnly: true, sameSite: 'lax' };
    this.sessionNotFound = errors['SessionNotFound'];
    /* eslint-disable @typescript-eslint/no-explicit-any */
    const provider = new Ctor(config.publicUrl, {
      adapter: class {
        constructor(name: string) {
          return new PgOauthAdapter(name, ds, adapterOptions);
        }
      },
      routes: ROUTES,
      jwks,
      cookies: { keys: cookieKeys, long: { signed: true, secure, httpOnly: true, sameSite: 'lax' }, short: shortCookie },
      // OAuth 2.1 for MCP: the authorization code with PKCE S256 only, no ID tokens.
      responseTypes: ['code'],
      pkce: { required: () => true },
      // OIDC-level scopes only; the ten API scopes are the MCP resource's (getResourceServerInfo).
      scopes: ['offline_access'],
      claims: { openid: ['sub'] },
      clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
      clientAuthMethods: ['none'],
      // CORS at the token and revocation endpoints (browser-based MCP clients): the origins of the
      // client's own redirect URIs only (oidc-provider's default for public clients, made explicit).
      clientBasedCORS: (_ctx: unknown, origin: string, client: any) =>
        origin !== 'null' &&
        (client.redirectUris as string[]).some((uri) => {
          try {
            return new URL(uri).origin === origin;
          } catch {
            return false;
          }
        }),
      findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
      // Every authorization asks the person again (a new connection each time): no grant is reused
      // from the provider's session, only the one the consent just created.
      loadExistingGrant: async (ctx: any) => {
        const grantId = ctx.oidc.result?.consent?.grantId;
        return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
      },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/oauth/consent/${interaction.uid}` },
      issueRefreshToken: async (_ctx: unknown, client: any) => client.grantTypeAllowed('refresh_token'),
      expiresWithSession: async () => false,
      rotateRefreshToken: () => true,
      ttl: {
        AccessToken: config.oauthAccessTokenTtlSeconds,
        AuthorizationCode: 60,
        Interaction: 3600,
        Session: 14 * 86400,
        Grant: config.oauthRefreshTokenTtlSeconds,
        RefreshToken: config.oauthRefreshTokenTtlSeconds,
      },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
        revocation: { enabled: true },
        introspection: { enabled: false },
        userinfo: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        // Bearer tokens only (the MCP server does not check DPoP proofs); no pushed requests.
        dPoP: { enabled: false },
        pushedAuthorizationRequests: { enabled: false },
        resourceIndicators: {
          enabled: true,
          // The resource parameter is required, and must be the MCP server (a trailing slash tolerated).
          defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
            let same = false;
            try {
              same = normaliseResource(indicator) === resource;
            } catch {
              same = false;
            }
            if (!same) throw new errors['InvalidTarget']!(`the only resource is ${resource}`);
            return { scope: SCOPES.join(' '), audience: resource, accessTokenTTL: config.oauthAccessTokenTtlSeconds, accessTokenFormat: 'opaque' };
          },
        },
      },
      discovery: {
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      },
      extraParams: [],
      // A browser (the authorization endpoint, before anyone approved) sees a page on the console;
      // programs get the error as JSON.
      renderError: async (ctx: any, out: Record<string, string>) => {
        if (ctx.accepts('json', 'html') === 'html') {
          ctx.type = 'html';
          ctx.body = errorPage(out['error'] ?? 'server_error', out['error_description'] ?? '');
          return;
        }
        ctx.type = 'json';
        ctx.body = { error: out['error'], error_description: out['error_description'] };
      },
    } as Record<string, any>);
    provider.proxy = Boolean(config.trustProxy);
    // The metadata lists the resource's scopes (oidc-provider lists only its own OIDC ones) and no openid.
    provider.use(async (ctx: any, next: () => Promise<void>) => {
      await next();
      if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
        ctx.body.scopes_supported = [...SCOPES, 'offline_access'];
        delete ctx.body.claims_supported;
        delete ctx.body.claims_parameter_supported;
        delete ctx.body.subject_types_supported;
        delete ctx.body.id_token_signing_alg_values_supported;
        delete ctx.body.request_uri_parameter_supported;
        delete ctx.body.claim_types_supported;
      }
    });
    // The consent is bound to the browser that started the authorization. oidc-provider's interaction
    // cookie is scoped to the consent page's path (/oauth/consent/<uid>), which the consent API
    // (/api/oauth/interactions/<uid>) is not under: the same signed cookie is also set for the API's
    // path, and the API answers only a request carrying it (interactionDetails, see boundInteraction).
    provider.on('interaction.started', (ctx: any) => {
      const interaction = ctx.oidc?.entities?.Interaction;
      if (!interaction?.uid) return;
      const seconds = Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000));
      ctx.cookies.set(provider.cookieName('interaction'), interaction.uid, { ...shortCookie, path: interactionApiPath(interaction.uid), maxAge: seconds * 1000, overwrite: false });
    });
    // Errors at the authorization endpoint, before a person decided, are shown on the console and
    // never sent to the client's redirect URI (RFC 9700 4.11.2: anyone can register any https
    // redirect URI, so redirecting there with an error would be an open redirector). After the
    // person's Allow or Deny (the resume route) the client gets its answer (access_denied …) as usual.
    provider.on('authorization.error', (ctx: any, err: { allow_redirect?: boolean }) => {
      if (ctx.oidc?.route === 'authorization') err.allow_redirect = false;
    });
    provider.on('server_error', (_ctx: unknown, err: Error) => this.logger.error({ err }, 'oauth: server error'));
    this.provider = provider;
    this.pruneTimer = setInterval(() => void pruneOauthArtifacts(this.ds).catch((err: unknown) => this.logger.warn({ err }, 'oauth: prune failed')), 3600_000);
    this.pruneTimer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.registrations.close();
  }

  /** The Koa callback (built once). */
  private handler?: (req: IncomingMessage, res: ServerResponse) => void;
  callback(): (req: IncomingMessage, res: ServerResponse) => void {
    return (this.handler ??= this.provider.callback());
  }

  /**
   * Ends a grant at once (a connection revoked in the console): the grant and every token and code
   * issued under it are deleted; console.connection.verify answers null from then on.
   */
  async revokeGrant(grantId: string): Promise<void> {
    await this.ds.query(`DELETE FROM people.oauth_artifacts WHERE grant_id = $1 OR (model = 'Grant' AND key_hash = $2)`, [grantId, artifactHash(grantId)]);
  }

  /**
   * The uid of the interaction this browser started (oidc-provider's signed interaction cookie,
   * as the consent API's path receives it), or null when the request carries none: another
   * browser, or one whose cookie expired.
   */
  async boundInteraction(req: IncomingMessage, res: ServerResponse): Promise<string | null> {
    try {
      const interaction = await this.provider.interactionDetails(req, res);
      return String(interaction.uid);
    } catch (err) {
      if (this.sessionNotFound && err instanceof this.sessionNotFound) return null;
      throw err;
    }
  }

  /** Whether one more registration from this address is within the limit (counts it). */
  async registrationAllowed(address: string): Promise<{ ok: boolean; retryAfterSeconds: number }> {
    const key = `${this.config.throttlePrefix}oauth-register:${address}`;
    const [state] = await this.registrations.read([key]);
    if (state && state.count >= this.config.oauthDcrMaxPerAddress) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(state.msLeft / 1000)) };
    await this.registrations.add([key]);
    return { ok: true, retryAfterSeconds: 0 };
  }

  /**
   * A Client ID Metadata Document: fetched through the outbound guard (https; http on loopback
   * only with OAUTH_CIMD_ALLOW_LOOPBACK), at most OAUTH_CIMD_MAX_BYTES, cached per Cache-Control
   * within bounds, validated (client_id equals the URL, public client, no secret).
   */
  async metadataDocument(id: string): Promise<Record<string, unknown> | undefined> {
    let url: URL;
    try {
      url = new URL(id);
    } catch {
      return undefined;
    }
    const loopback = url.protocol === 'http:' && LOOPBACK.has(url.hostname) && this.config.oauthCimdAllowLoopback;
    if (url.protocol !== 'https:' && !loopback) return undefined;
    if (url.hash || url.username || url.password || url.toString() !== id) return undefined;
    const cached = this.cimdCache.get(id);
    if (cached && cached.until > Date.now()) return cached.properties;
    const policy = outboundPolicy({
      maxBytes: this.config.oauthCimdMaxBytes,
      timeoutMs: 5000,
      maxRedirects: 0,
      allowedPorts: loopback ? [Number(url.port || 80)] : [443, Number(url.port || 443)],
      allowCidrs: loopback ? ['127.0.0.0/8', '::1/128'] : [],
    });
    let properties: Record<string, unknown>;
    let maxAge = this.config.oauthCimdCacheMinSeconds;
    try {
      const res = await guardedFetch(id, policy, { accept: 'application/json', followRedirects: false });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      properties = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
      const m = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(res.headers['cache-control'] ?? '');
      if (m) maxAge = Number(m[1]);
    } catch (err) {
      this.logger.info({ client_id: id, err: err instanceof GuardError ? err.message : (err as Error).message }, 'oauth: client metadata document not fetched');
      return undefined;
    }
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties) || properties['client_id'] !== id) return undefined;
    // Text PostgreSQL cannot store (a lone surrogate in client_name) and the like: refused as at every edge.
    if (plainJsonIssue(properties)) return undefined;
    if ('client_secret' in properties || 'client_secret_expires_at' in properties) return undefined;
    const method = properties['token_endpoint_auth_method'];
    if (method !== undefined && method !== 'none') return undefined;
    if (!Array.isArray(properties['redirect_uris']) || properties['redirect_uris'].length === 0) return undefined;
    const refusal = redirectUrisRefusal(properties['redirect_uris']);
    if (refusal) {
      this.logger.info({ client_id: id, reason: refusal }, 'oauth: client metadata document refused');
      return undefined;
    }
    const clean: Record<string, unknown> = {
      client_id: id,
      client_name: typeof properties['client_name'] === 'string' ? properties['client_name'].slice(0, 200) : undefined,
      redirect_uris: properties['redirect_uris'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(typeof properties['application_type'] === 'string' ? { application_type: properties['application_type'] } : {}),
      ...(typeof properties['client_uri'] === 'string' ? { client_uri: properties['client_uri'] } : {}),
    };
    if (clean['client_name'] === undefined) delete clean['client_name'];
    const seconds = Math.max(this.config.oauthCimdCacheMinSeconds, Math.min(this.config.oauthCimdCacheMaxSeconds, maxAge));
    if (this.cimdCache.size > 1000) this.cimdCache.clear();
    this.cimdCache.set(id, { properties: clean, until: Date.now() + seconds * 1000 });
    return clean;
  }
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page a browser sees when the authorization server refuses a request itself (a missing or
 * wrong parameter, an unknown client, an expired request): the error as text, no redirect to the
 * client. Static, without scripts or styles (the console's CSP applies).
 */
export function errorPage(error: string, description: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Connection request refused</title></head>',
    '<body><main>',
    '<h1>Connection request refused</h1>',
    `<p>${escapeHtml(description || 'The application sent a request the console cannot accept.')}</p>`,
    `<p>Error: <code>${escapeHtml(error)}</code></p>`,
    '<p>Nothing was shared with the application. Go back to the application and start connecting again; if this happens again, tell its maker.</p>',
    '<p><a href="/">Go to the console</a></p>',
    '</main></body></html>',
  ].join('\n');
}

/**
 * A key of the authorization server kept in people.oauth_keys, so that every console replica signs
 * and reads interaction cookies alike: the first replica to start inserts `make()`, the others
 * (and later starts) read what is there.
 */
export async function sharedKey<T>(ds: DataSource, name: string, make: () => T): Promise<T> {
  await ds.query(`INSERT INTO people.oauth_keys (name, value) VALUES ($1, $2::jsonb) ON CONFLICT (name) DO NOTHING`, [name, JSON.stringify(make())]);
  const rows: { value: T }[] = await ds.query(`SELECT value FROM people.oauth_keys WHERE name = $1`, [name]);
  return rows[0].value;
}
