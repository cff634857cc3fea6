// A real OAuth 2.1 authorization server on 127.0.0.1 for tests of MCP servers with OAuth (issue
// 34, item 3): oidc-provider (OpenID certified), run as a process of its own because it is an
// ES module only (jest loads CommonJS). Started by local-oauth-server.ts; speaks one JSON line
// on stdout when it listens ({"port":…}).
//
// What it offers: RFC 8414 metadata, dynamic client registration (RFC 7591, public clients),
// the authorization code with PKCE S256 required, refresh tokens (rotated), resource indicators
// (RFC 8707: tokens for the MCP server's URL only, opaque), token introspection (RFC 7662) for
// the resource server's own client, and RFC 9207's `iss` in the answer. The consent is a page of
// its own (/interaction/:uid, Allow and Deny buttons: a browser test clicks them; a program posts
// the same forms). Configuration from the environment (see local-oauth-server.ts).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import Provider from 'oidc-provider';

const env = process.env;
const tls = env.AS_TLS_KEY_FILE ? { key: readFileSync(env.AS_TLS_KEY_FILE), cert: readFileSync(env.AS_TLS_CERT_FILE) } : null;
const accessTtl = Number(env.AS_ACCESS_TTL_SECONDS || 3600);
const scopes = (env.AS_SCOPES || 'orders:read orders:write').split(' ');
const staticClients = JSON.parse(env.AS_STATIC_CLIENTS || '[]');
const introspector = { client_id: 'mcp-resource', client_secret: env.AS_INTROSPECTION_SECRET, grant_types: [], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' };
const stats = { registrations: 0, grants: {}, introspections: 0, consents: 0 };

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function main() {
  const server = tls ? createHttpsServer(tls) : createHttpServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const issuer = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const resource = env.AS_RESOURCE;

  const provider = new Provider(issuer, {
    clients: [introspector, ...staticClients],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    // The resource's scopes too: a registration (RFC 7591 `scope`) names them.
    scopes: ['offline_access', ...scopes],
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    ttl: { AccessToken: accessTtl, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 86400, RefreshToken: 86400 },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      introspection: { enabled: true, allowedPolicy: async (ctx) => ctx.oidc.client.clientId === introspector.client_id },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== resource && indicator !== `${resource}/`) throw new Provider.errors.InvalidTarget(`the only resource is ${resource}`);
          return { scope: scopes.join(' '), audience: resource, accessTokenTTL: accessTtl, accessTokenFormat: 'opaque' };
        },
      },
    },
    discovery: { authorization_response_iss_parameter_supported: true },
  });
  provider.on('registration_create.success', () => stats.registrations++);
  provider.on('grant.success', (ctx) => {
    const type = ctx.oidc.params?.grant_type ?? '?';
    stats.grants[type] = (stats.grants[type] ?? 0) + 1;
  });
  provider.on('introspection.success', () => stats.introspections++);
  const oidc = provider.callback();

  const form = (req) =>
    new Promise((resolve) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => resolve(new URLSearchParams(body)));
    });

  server.on('request', async (req, res) => {
    try {
      const url = new URL(req.url, issuer);
      if (url.pathname === '/_test/stats') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
        return;
      }
      const m = /^\/interaction\/([^/]+)(\/(allow|deny))?$/.exec(url.pathname);
      if (!m) return oidc(req, res);
      const details = await provider.interactionDetails(req, res);
      if (req.method === 'GET' && !m[2]) {
        const client = await provider.Client.find(details.params.client_id);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          [
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize access</title></head><body><main>',
            `<h1>Authorize ${escapeHtml(client?.clientName ?? details.params.client_id)}</h1>`,
            `<p>It asks for: ${escapeHtml(details.params.scope ?? scopes.join(' '))}</p>`,
            `<form method="post" action="/interaction/${escapeHtml(details.uid)}/allow"><button type="submit">Allow</button></form>`,
            `<form method="post" action="/interaction/${escapeHtml(details.uid)}/deny"><button type="submit">Deny</button></form>`,
            '</main></body></html>',
          ].join('\n'),
        );
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      await form(req);
      if (m[3] === 'deny') {
        await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The owner said no' }, { mergeWithLastSubmission: false });
        return;
      }
      stats.consents++;
      const grant = new provider.Grant({ accountId: 'owner', clientId: details.params.client_id });
      const asked = (details.params.scope ?? '').split(' ').filter((s) => scopes.includes(s));
      const granted = (asked.length ? asked : scopes).join(' ');
      grant.addOIDCScope(['offline_access', ...asked].join(' '));
      grant.addResourceScope(resource, granted);
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: 'owner' }, consent: { grantId } }, { mergeWithLastSubmission: false });
    } catch (err) {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err?.message ?? err));
    }
  });
  process.stdout.write(`${JSON.stringify({ port, issuer })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
