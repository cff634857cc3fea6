import type { DynamicModule } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyCookie from '@fastify/cookie';
import type { Logger } from 'pino';
import { clientErrorHandler, configureFastify, edgeServerOptions, frameworkErrors, installHttpPolicy, jsonNestingExceeds, limitConnectionsPerAddress, requestIdOf } from '@sa/edge';
import { MAX_JSON_DEPTH, SCOPES, plainJsonIssue } from '@sa/contracts';
import { BadRequest } from '@sa/errors';
import { PinoNestLogger } from '@sa/logging';
import type { ConsoleConfig } from '../config/console.config';
import { CsrfFailed } from '@sa/people';
import { UNSAFE_METHODS, consoleOrigins, originRefusal } from '../auth/csrf';
import { redirectUrisRefusal } from '../oauth/redirect-uri';
import { SECURITY_HEADERS, isApiPath } from './security-headers';
import { serveWebApp } from './web-app';
import { OAUTH_METADATA_PATH, OauthServer, isOauthPath } from '../oauth/oauth-server';

/**
 * The console's HTTP server: Fastify with the public edges' hardening (timeouts, connections per
 * address, JSON bodies only, X-Request-Id, access log and metrics, spec-shaped refusals), the
 * security headers on every response, no-store on the API, the session cookie parser, and the
 * web application with its client-side routes.
 */
export async function createConsoleApp(module: DynamicModule, config: ConsoleConfig, logger: Logger): Promise<NestFastifyApplication> {
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const adapter = new FastifyAdapter({
    ...edgeServerOptions(config),
    bodyLimit: config.bodyLimitBytes,
    clientErrorHandler,
    frameworkErrors,
    trustProxy: config.trustProxy,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req),
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    return503OnClosing: false,
  });
  const fastify = adapter.getInstance();
  limitConnectionsPerAddress(fastify.server, config.httpMaxConnectionsPerAddress);
  configureFastify(fastify, logger);
  const origins = consoleOrigins(config);
  // The authorization server is Nest's (it needs the database): known once the module is created.
  const oauth: { server?: OauthServer } = {};
  fastify.addHook('onRequest', async (req, reply) => {
    void reply.headers(SECURITY_HEADERS);
    const path = req.url.split('?')[0];
    if (oauth.server && isOauthPath(path)) return handOverToOauth(oauth.server, req, reply);
    if (!isApiPath(req.url.split('?')[0])) return;
    void reply.header('cache-control', 'no-store');
    // A cross-site write is refused before its body is read, whatever its content type (a forged
    // form gets 403 csrf_failed, not a 400 about its body). The guard checks again, with the session.
    if (UNSAFE_METHODS.has(req.method)) {
      const refusal = originRefusal(req.headers, origins);
      if (refusal) throw new CsrfFailed(refusal);
    }
  });
  // nosniff and no-store on everything (web files set their own caching), OPTIONS with Allow; no CORS.
  installHttpPolicy(fastify, { corsAllowedOrigins: [], corsPaths: [], corsAllowHeaders: [] });
  acceptConsoleJson(fastify, config.jsonMaxDepth);
  acceptFileUploads(fastify, config.kbFileMaxBytes);
  await fastify.register(fastifyCookie);
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { logger: new PinoNestLogger(logger), bodyParser: false });
  oauth.server = app.get(OauthServer, { strict: false });
  await serveWebApp(fastify, config.webDir);
  return app;
}

/**
 * The authorization server (oidc-provider, a Koa app) answers /oauth/* (but the consent page) and
 * the RFC 8414 metadata with the raw request and response: Fastify's JSON-only body parsing and the
 * console's Origin check (programs call the token, registration and revocation endpoints) do not
 * apply; the security headers do. Registrations are limited per client address.
 */
async function handOverToOauth(oauth: OauthServer, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const raw = reply.raw;
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) raw.setHeader(name, value);
  const path = req.url.split('?')[0];
  if (req.method === 'POST' && path === '/oauth/register') {
    const limit = await oauth.registrationAllowed(req.ip);
    if (!limit.ok) {
      void reply
        .code(429)
        .header('retry-after', String(limit.retryAfterSeconds))
        .header('cache-control', 'no-store')
        // 429 with Retry-After; `too_many_requests` is what the MCP SDK's own authorization server
        // answers and its client maps (TooManyRequestsError). RFC 7591 has no code for a rate limit.
        .send({ error: 'too_many_requests', error_description: `Too many client registrations from this address; retry in ${limit.retryAfterSeconds} seconds` });
      return reply;
    }
  }
  if (req.method === 'POST' && path === '/oauth/register') {
    const refusal = await publicClientOnly(req.raw);
    if (refusal) {
      void reply.code(400).header('cache-control', 'no-store').send(refusal);
      return reply;
    }
  }
  if (req.method === 'GET' && path === '/oauth/authorize') req.raw.url = withDefaultScope(req.url);
  if (path === OAUTH_METADATA_PATH) req.raw.url = '/.well-known/openid-configuration' + req.url.slice(path.length);
  reply.hijack();
  oauth.callback()(req.raw, raw);
}

/**
 * An authorization request that names no API scope (RFC 6749 3.3: the server then uses a
 * pre-defined default) asks for all ten: the consent page offers them all, ticked, and the person
 * unticks what the client should not get. Without this the page would have nothing to allow.
 */
function withDefaultScope(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  const scope = (params.get('scope') ?? '').split(' ').filter(Boolean);
  if (scope.some((s) => (SCOPES as readonly string[]).includes(s))) return url;
  params.set('scope', [...scope, ...SCOPES].join(' '));
  return `${url.slice(0, q)}?${params.toString()}`;
}

/**
 * RFC 7591 lets the server replace requested metadata: a registration asking for a client secret
 * (client_secret_basic/post/jwt) gets a public client (`none`) instead of a refusal, since
 * clients such as those of MCP hosts ask for one by habit and use what the answer says; API scopes
 * in its `scope` are dropped (see below). The body
 * is read here (at most 56 KiB, oidc-provider's own limit) and handed on already read.
 */
async function publicClientOnly(raw: IncomingMessage & { body?: Buffer }): Promise<{ error: string; error_description: string } | null> {
  if (!/^application\/json\b/i.test(String(raw.headers['content-type'] ?? ''))) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of raw.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > 56 * 1024) break;
    chunks.push(chunk as Buffer);
  }
  let body = Buffer.concat(chunks);
  try {
    const meta = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
      // What every edge refuses (unstorable text such as a lone surrogate, too deep, reserved names), then the redirect URIs.
      const issue = plainJsonIssue(meta, [], MAX_JSON_DEPTH);
      if (issue) return { error: 'invalid_client_metadata', error_description: issue.message };
      const refusal = redirectUrisRefusal(meta['redirect_uris']);
      if (refusal) return { error: 'invalid_redirect_uri', error_description: refusal };
      let changed = false;
      if (meta['token_endpoint_auth_method'] !== undefined && meta['token_endpoint_auth_method'] !== 'none') {
        meta['token_endpoint_auth_method'] = 'none';
        changed = true;
      }
      // The MCP SDK sends the resource's scopes_supported as the registration's scope. The ten API
      // scopes are the MCP resource's, granted per connection on the consent page, not OIDC scopes
      // oidc-provider knows: it would refuse the client (invalid_client_metadata). They are taken out.
      if (typeof meta['scope'] === 'string') {
        const kept = meta['scope'].split(' ').filter((s) => s && !(SCOPES as readonly string[]).includes(s));
        if (kept.join(' ') !== meta['scope']) {
          if (kept.length) meta['scope'] = kept.join(' ');
          else delete meta['scope'];
          changed = true;
        }
      }
      if (changed) body = Buffer.from(JSON.stringify(meta));
    }
  } catch {
    // not JSON: oidc-provider answers invalid_request
  }
  raw.body = body;
  return null;
}

/**
 * Knowledge files are uploaded as their bytes (application/octet-stream, which a cross-site form
 * cannot send without a preflight), up to their own limit; the routes that take JSON refuse such
 * a body in their validation (400). Too large: 400 before the body is read to its end.
 */
function acceptFileUploads(fastify: FastifyInstance, maxBytes: number): void {
  fastify.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: maxBytes }, (_req, body: Buffer, done) => done(null, body));
}

/**
 * As the public edges (acceptJsonBodiesOnly): `application/json` only, so no page can post a form
 * or text/plain cross-site without a preflight; too deep nesting refused before parsing. Unlike
 * them an empty body is `{}` (sign out, sign out everywhere, actions without input).
 */
function acceptConsoleJson(fastify: FastifyInstance, maxDepth: number): void {
  fastify.removeAllContentTypeParsers();
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string, done) => {
    if (body.trim() === '') return done(null, {});
    if (jsonNestingExceeds(body, maxDepth)) {
      done(new BadRequest(`The JSON body is nested too deeply (at most ${maxDepth} levels of objects and arrays)`), undefined);
      return;
    }
    parse(req, body, done);
  });
}
