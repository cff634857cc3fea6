import * as path from 'node:path';
import { blobStorageConfig } from '@sa/blob-storage';
import { baseUrlSetting, commonConfig, env, parseConfig } from '@sa/config';
import { edgeConfig } from '@sa/edge';
import { LEADS_EXPORT_PAGE, PLANS } from '@sa/contracts';

/** An http(s) URL without a path, query or fragment: the origin people open the console at. */
function publicUrl(name: string) {
  return (src: Record<string, string | undefined>, problems: string[]): string | undefined => {
    const raw = src[name];
    if (raw === undefined || raw === '') return undefined;
    try {
      const url = new URL(raw);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash) return url.origin;
    } catch {
      // reported below
    }
    problems.push(`${name}: "${raw}" is not an origin such as https://console.example.com (scheme, host and port; no path)`);
    return undefined;
  };
}

/** Extra exact origins allowed to write (a development server in front of the console). */
function originList(name: string) {
  return (src: Record<string, string | undefined>, problems: string[]): string[] => {
    const list = (src[name] ?? '').split(',').map((o) => o.trim()).filter(Boolean);
    for (const origin of list) {
      let ok = false;
      try {
        const url = new URL(origin);
        ok = (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin.toLowerCase();
      } catch {
        ok = false;
      }
      if (!ok) problems.push(`${name}: "${origin}" is not an origin such as https://console.example.com`);
    }
    return list.map((o) => o.toLowerCase());
  };
}

const { corsAllowedOrigins: _cors, anonymousRateLimitRequests: _a, anonymousRateLimitWindowSeconds: _w, rateLimitRequests: _r, rateLimitWindowSeconds: _rw, ...edgeHttp } = edgeConfig;

export const loadConsoleConfig = (source: Record<string, string | undefined> = process.env) => {
  const parsed = parseConfig(
    {
      ...commonConfig,
      // HTTP hardening, Redis, plan limits (the workspace page) as the public edges read them.
      ...edgeHttp,
      port: env.int('CONSOLE_PORT', 3002, { min: 0, max: 65535 }),
      host: env.str('CONSOLE_HOST', '127.0.0.1'),
      /** Where people open the console: its origin is the only one allowed to write; https makes the cookie Secure; e-mail links start with it. */
      publicUrl: publicUrl('CONSOLE_PUBLIC_URL'),
      extraOrigins: originList('CONSOLE_EXTRA_ORIGINS'),
      /** Where websites load the widget from (the install snippet's `${GATEWAY_PUBLIC_URL}/widget/v1/embed.js`). */
      gatewayPublicUrl: baseUrlSetting('GATEWAY_PUBLIC_URL', `http://127.0.0.1:${source['GATEWAY_PORT'] || '3000'}`),
      /** The built web application (Vite output). */
      webDir: env.str('CONSOLE_WEB_DIR', path.resolve(__dirname, '..', '..', 'web')),
      sessionIdleSeconds: env.int('CONSOLE_SESSION_IDLE_SECONDS', 1800, { min: 60, max: 30 * 86400 }),
      sessionAbsoluteSeconds: env.int('CONSOLE_SESSION_ABSOLUTE_SECONDS', 12 * 3600, { min: 300, max: 90 * 86400 }),
      invitationTtlSeconds: env.int('CONSOLE_INVITATION_TTL_SECONDS', 7 * 86400, { min: 300, max: 90 * 86400 }),
      passwordResetTtlSeconds: env.int('CONSOLE_PASSWORD_RESET_TTL_SECONDS', 3600, { min: 300, max: 7 * 86400 }),
      /**
       * The sign-in throttle (SignInThrottle): failed sign-ins per account (and per account and
       * address), and per client address, before each further attempt waits a delay that doubles
       * from CONSOLE_SIGNIN_DELAY_SECONDS up to CONSOLE_SIGNIN_MAX_DELAY_SECONDS; failures are
       * forgotten a window after that delay; an address an account signed in from is known for
       * CONSOLE_SIGNIN_KNOWN_ADDRESS_DAYS.
       */
      signInMaxFailuresPerAccount: env.int('CONSOLE_SIGNIN_MAX_FAILURES_PER_ACCOUNT', 5, { min: 1 }),
      signInMaxFailuresPerAddress: env.int('CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS', 20, { min: 1 }),
      signInFailureWindowSeconds: env.int('CONSOLE_SIGNIN_FAILURE_WINDOW_SECONDS', 900, { min: 1, max: 86400 }),
      signInDelaySeconds: env.int('CONSOLE_SIGNIN_DELAY_SECONDS', 1, { min: 1, max: 3600 }),
      signInMaxDelaySeconds: env.int('CONSOLE_SIGNIN_MAX_DELAY_SECONDS', 300, { min: 1, max: 86400 }),
      signInKnownAddressDays: env.int('CONSOLE_SIGNIN_KNOWN_ADDRESS_DAYS', 30, { min: 0, max: 365 }),
      throttlePrefix: env.str('CONSOLE_THROTTLE_PREFIX', 'sa:console:'),
      /** Leads per leads.lead.list call while streaming a CSV export (each reply well under NATS's 1 MB). */
      leadsExportPage: env.int('CONSOLE_LEADS_EXPORT_PAGE', LEADS_EXPORT_PAGE, { min: 10, max: 500 }),
      /** Password-reset requests: e-mails per account, and requests per client address, within the window. */
      passwordResetMaxPerAccount: env.int('CONSOLE_PASSWORD_RESET_MAX_PER_ACCOUNT', 3, { min: 1 }),
      passwordResetMaxPerAddress: env.int('CONSOLE_PASSWORD_RESET_MAX_PER_ADDRESS', 20, { min: 1 }),
      passwordResetWindowSeconds: env.int('CONSOLE_PASSWORD_RESET_WINDOW_SECONDS', 3600, { min: 1, max: 86400 }),
      /** Handoff e-mails: each owner and admin gets at most one per window, a digest of the conversations waiting since the last (issue 30). */
      handoffMailWindowSeconds: env.int('CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS', 300, { min: 1, max: 86400 }),
      // ---- First-run setup (issue 31) ----
      /** The plan the setup's workspace gets: by default scale, which has everything the spec gates (API access, webhooks). */
      setupPlan: env.oneOf('CONSOLE_SETUP_PLAN', PLANS, 'scale'),
      /** A setup code chosen by the operator (a Secret; at least 16 letters or digits); empty: one is generated at each start and logged. */
      setupCode: env.str('CONSOLE_SETUP_CODE', ''),
      /** How long a setup code works (restarting the console makes a new one while nobody is set up). */
      setupCodeTtlHours: env.int('CONSOLE_SETUP_CODE_TTL_HOURS', 24, { min: 1, max: 720 }),
      // ---- MCP OAuth (issue 17): the authorization server at /oauth/* ----
      /** The MCP server's resource URL (RFC 8707): the only resource tokens are issued for. Default http://127.0.0.1:${MCP_PORT:-3001}/mcp. */
      mcpResourceUrl: env.url('MCP_RESOURCE_URL', `http://127.0.0.1:${source['MCP_PORT'] || '3001'}/mcp`, ['http', 'https']),
      oauthAccessTokenTtlSeconds: env.int('OAUTH_ACCESS_TOKEN_TTL_SECONDS', 600, { min: 30, max: 86400 }),
      oauthRefreshTokenTtlSeconds: env.int('OAUTH_REFRESH_TOKEN_TTL_SECONDS', 30 * 86400, { min: 300, max: 365 * 86400 }),
      /** A rotated refresh token still works once more within this many seconds (two concurrent refreshes both succeed). */
      oauthRefreshGraceSeconds: env.int('OAUTH_REFRESH_GRACE_SECONDS', 30, { min: 0, max: 600 }),
      /** A client registered through DCR is forgotten after this long unused. */
      oauthDcrClientTtlSeconds: env.int('OAUTH_DCR_CLIENT_TTL_SECONDS', 30 * 86400, { min: 300, max: 365 * 86400 }),
      /** Registrations (POST /oauth/register) allowed per client address within the window. */
      oauthDcrMaxPerAddress: env.int('OAUTH_DCR_MAX_PER_ADDRESS', 10, { min: 1 }),
      oauthDcrWindowSeconds: env.int('OAUTH_DCR_WINDOW_SECONDS', 3600, { min: 1, max: 86400 }),
      /** Client ID Metadata Documents at http://<loopback> (tests, local clients); otherwise https only. */
      oauthCimdAllowLoopback: env.bool('OAUTH_CIMD_ALLOW_LOOPBACK', false),
      oauthCimdMaxBytes: env.int('OAUTH_CIMD_MAX_BYTES', 5 * 1024, { min: 512, max: 64 * 1024 }),
      oauthCimdCacheMinSeconds: env.int('OAUTH_CIMD_CACHE_MIN_SECONDS', 60, { min: 0, max: 86400 }),
      oauthCimdCacheMaxSeconds: env.int('OAUTH_CIMD_CACHE_MAX_SECONDS', 3600, { min: 0, max: 7 * 86400 }),
      /** Signing keys (a JWKS as JSON) oidc-provider keeps for what it signs; opaque tokens need none. Empty: generated once and shared by every replica through people.oauth_keys. */
      oauthJwks: env.str('OAUTH_JWKS', ''),
      /** Random secrets (comma-separated) oidc-provider signs its cookies with. Empty: generated once and shared by every replica through people.oauth_keys. */
      oauthCookieKeys: env.str('OAUTH_COOKIE_KEYS', ''),
      // ---- Knowledge files (issue 19) ----
      /** Largest file a person may upload to the knowledge base, in bytes (the knowledge service reads the same variable). */
      kbFileMaxBytes: env.int('KB_FILE_MAX_BYTES', 20 * 1024 * 1024, { min: 1024, max: 1024 * 1024 * 1024 }),
      ...blobStorageConfig,
    },
    source,
  );
  const publicOrigin = parsed.publicUrl ?? `http://${parsed.host === '0.0.0.0' || parsed.host === '::' ? '127.0.0.1' : parsed.host}:${parsed.port}`;
  return { ...parsed, publicUrl: publicOrigin, mcpResourceUrl: normaliseResource(parsed.mcpResourceUrl), extraOrigins: [...new Set([...parsed.extraOrigins, ...loopbackAliases(publicOrigin)])] };
};

/** A resource URL without a trailing slash on its path (clients differ by one: the comparison is on this form). */
export function normaliseResource(url: string): string {
  const u = new URL(url);
  u.hash = '';
  if (u.pathname.length > 1 && u.pathname.endsWith('/')) u.pathname = u.pathname.slice(0, -1);
  return u.pathname === '/' && !u.search ? u.origin : u.toString();
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * A console opened on this machine answers to every spelling of loopback: with the public URL
 * http://127.0.0.1:3002, a page opened at http://localhost:3002 may write too (only this machine
 * can open either, so no other site gains anything).
 */
export function loopbackAliases(origin: string): string[] {
  const url = new URL(origin);
  if (!LOOPBACK_HOSTS.includes(url.hostname)) return [];
  return LOOPBACK_HOSTS.filter((h) => h !== url.hostname).map((h) => `${url.protocol}//${h}${url.port ? `:${url.port}` : ''}`);
}

export type ConsoleConfig = ReturnType<typeof loadConsoleConfig>;
export const CONSOLE_CONFIG = Symbol('CONSOLE_CONFIG');
export const CONSOLE_LOGGER = Symbol('CONSOLE_LOGGER');
