'use strict';
// What every hand-written GET /v1/bots server of the benchmark shares with the real system:
// the gateway's token check (bearer shape, SHA-256, cached token + workspace, live access, scope)
// and BotsRepository.list's exact SQL and BotView mapping.
//
// Token cache: the gateway's TokenVerifier serves every steady-state request from an in-process
// LRU (AUTH_CACHE_TTL_MS, default 30 s; revocations arrive by LISTEN/NOTIFY, which costs nothing
// per request), so these servers cache too, with the same TTL, filling a miss with the same
// SELECTs TypeORM issues. A baseline that hit the database for the token on every request would
// be slower than the real thing and flatter the ratio.
const { createHash, randomUUID } = require('node:crypto');
const { Pool } = require('pg');

const CACHE_TTL_MS = 30000;
const TOKEN_PATTERN = /^mgpt_[A-Za-z0-9_-]{43}$/;
const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// The SQL TypeORM renders for TokenVerifier.loadToken, TokenVerifier.workspace (findOneBy) and
// BotsRepository.list(tenantId, botIds, 1000), sent as unnamed statements like TypeORM does.
const TOKEN_SQL =
  'SELECT "t"."id" AS "t_id", "t"."workspace_id" AS "t_workspace_id", "t"."name" AS "t_name", "t"."scopes" AS "t_scopes", "t"."bot_ids" AS "t_bot_ids", "t"."expires_at" AS "t_expires_at", "t"."revoked_at" AS "t_revoked_at" FROM "identity"."api_tokens" "t" WHERE "t"."token_hash" = $1';
const WORKSPACE_SQL =
  'SELECT "WorkspaceEntity"."id" AS "WorkspaceEntity_id", "WorkspaceEntity"."name" AS "WorkspaceEntity_name", "WorkspaceEntity"."plan" AS "WorkspaceEntity_plan", "WorkspaceEntity"."trial_ends_at" AS "WorkspaceEntity_trial_ends_at", "WorkspaceEntity"."billing_status" AS "WorkspaceEntity_billing_status", "WorkspaceEntity"."enterprise_api" AS "WorkspaceEntity_enterprise_api", "WorkspaceEntity"."enterprise_webhooks" AS "WorkspaceEntity_enterprise_webhooks", "WorkspaceEntity"."tier_slots" AS "WorkspaceEntity_tier_slots", "WorkspaceEntity"."messages_per_month" AS "WorkspaceEntity_messages_per_month", "WorkspaceEntity"."pages_per_bot" AS "WorkspaceEntity_pages_per_bot", "WorkspaceEntity"."bot_slots" AS "WorkspaceEntity_bot_slots", "WorkspaceEntity"."created_at" AS "WorkspaceEntity_created_at", "WorkspaceEntity"."updated_at" AS "WorkspaceEntity_updated_at" FROM "identity"."workspaces" "WorkspaceEntity" WHERE (("WorkspaceEntity"."id" = $1)) LIMIT 1';
const BOTS_SQL =
  'SELECT "b"."id" AS "b_id", "b"."tenant_id" AS "b_tenant_id", "b"."name" AS "b_name", "b"."language" AS "b_language", "b"."slot_kind" AS "b_slot_kind", "b"."enterprise_plan_tier" AS "b_enterprise_plan_tier", "b"."created_at" AS "b_created_at" FROM "bots"."bots" "b" WHERE "b"."tenant_id" = $1 ORDER BY "b"."created_at" ASC, "b"."id" ASC LIMIT 1000';
const BOTS_RESTRICTED_SQL = BOTS_SQL.replace(' ORDER BY', ' AND "b"."id" = ANY($2) ORDER BY');

function createPool(applicationName) {
  return new Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DB_POOL_SIZE || 10),
    application_name: applicationName,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
  });
}

function hasLiveApiAccess(w, now) {
  if (w.billing_status !== 'active') return false;
  switch (w.plan) {
    case 'growth_trial':
      return w.trial_ends_at !== null && w.trial_ends_at.getTime() > now;
    case 'growth':
    case 'scale':
      return true;
    case 'enterprise':
      return w.enterprise_api;
    default:
      return false;
  }
}

/** The gateway's AuthGuard minus the rate limiter: resolves to {tenantId, botIds} or sends the error. */
function createAuth(pool) {
  const tokens = new Map();
  const workspaces = new Map();
  async function cached(map, key, load) {
    const hit = map.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    const value = await load();
    map.set(key, { value, until: Date.now() + CACHE_TTL_MS });
    return value;
  }
  const fail = (reply, status, code, message) => {
    void reply.code(status).send({ error: { code, message } });
    return null;
  };
  return async function authenticate(req, reply, scope) {
    const header = req.headers.authorization;
    const m = header ? BEARER.exec(header) : null;
    if (!m || !TOKEN_PATTERN.test(m[1])) return fail(reply, 401, 'unauthorized', 'Send the API token as "Authorization: Bearer <token>"');
    const hash = createHash('sha256').update(m[1], 'utf8').digest('hex');
    const token = await cached(tokens, hash, async () => {
      const row = (await pool.query(TOKEN_SQL, [hash])).rows[0];
      return !row || row.t_revoked_at ? null : { id: row.t_id, workspaceId: row.t_workspace_id, scopes: row.t_scopes, botIds: row.t_bot_ids, expiresAt: row.t_expires_at };
    });
    const now = Date.now();
    if (!token || (token.expiresAt && token.expiresAt.getTime() <= now)) return fail(reply, 401, 'unauthorized', 'Invalid API token');
    const ws = await cached(workspaces, token.workspaceId, async () => {
      const row = (await pool.query(WORKSPACE_SQL, [token.workspaceId])).rows[0];
      if (!row) return null;
      return {
        id: row.WorkspaceEntity_id,
        plan: row.WorkspaceEntity_plan,
        billing_status: row.WorkspaceEntity_billing_status,
        trial_ends_at: row.WorkspaceEntity_trial_ends_at,
        enterprise_api: row.WorkspaceEntity_enterprise_api,
      };
    });
    if (!ws) return fail(reply, 401, 'unauthorized', 'Invalid API token');
    if (!hasLiveApiAccess(ws, now)) return fail(reply, 402, 'api_locked', 'API access is locked');
    if (!token.scopes.includes(scope)) return fail(reply, 403, 'insufficient_scope', `This token lacks ${scope}`);
    return { tenantId: ws.id, tokenId: token.id, botIds: token.botIds };
  };
}

/** BotsService.list: the repository query and toBotView. */
async function listBots(pool, tenantId, botIds) {
  const { rows } = botIds ? await pool.query(BOTS_RESTRICTED_SQL, [tenantId, botIds]) : await pool.query(BOTS_SQL, [tenantId]);
  return rows.map((b) => ({ id: b.b_id, name: b.b_name, slot_kind: b.b_slot_kind, language: b.b_language, created_at: b.b_created_at.toISOString() }));
}

/** Fastify options and hook matching the gateway's: X-Request-Id kept or a new uuid, echoed back. */
function fastifyLike(fastify) {
  const app = fastify({
    logger: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  return app;
}

/** Listens on PORT (0 = any) and reports {ready: port} to the parent over IPC. */
function listen(app, onClose) {
  async function shutdown() {
    try {
      await app.close();
      await onClose();
    } finally {
      process.exit(0);
    }
  }
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('disconnect', shutdown);
  app.listen({ port: Number(process.env.PORT || 0), host: '127.0.0.1' }).then(
    () => {
      const { port } = app.server.address();
      if (process.send) process.send({ ready: port });
      else process.stdout.write(`listening on http://127.0.0.1:${port}/v1/bots\n`);
    },
    (err) => {
      process.stderr.write(`failed to start: ${err.stack}\n`);
      process.exit(1);
    },
  );
}

module.exports = { createAuth, createPool, fastifyLike, listBots, listen };
