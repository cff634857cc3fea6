'use strict';
// The single-process baseline of GET /v1/bots: Fastify + a pg Pool doing the same per-request
// work as gateway + bots service, minus the NATS hop and NestJS (see common.js):
//   bearer token -> SHA-256 -> cached token/workspace (same TTL and SELECTs as the gateway's
//   TokenVerifier) -> live access and bots:read checks -> BotsRepository.list's exact SELECT ->
//   {"data":[{id,name,slot_kind,language,created_at}]}.
// Not here: the rate limiter (the gateway's limiter is part of what the benchmark measures
// against this baseline) and per-request logging (the gateway runs at LOG_LEVEL=warn in the
// benchmark, so it writes none either).
// Environment: DATABASE_URL, PORT (0 = any), DB_POOL_SIZE (default 10, the apps' default).
const fastify = require('fastify');
const { createAuth, createPool, fastifyLike, listBots, listen } = require('./common');

const pool = createPool('bench-baseline');
const authenticate = createAuth(pool);
const app = fastifyLike(fastify);

app.get('/v1/bots', async (req, reply) => {
  const caller = await authenticate(req, reply, 'bots:read');
  if (!caller) return reply;
  return { data: await listBots(pool, caller.tenantId, caller.botIds) };
});

listen(app, () => pool.end());
