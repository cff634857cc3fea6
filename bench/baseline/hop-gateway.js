'use strict';
// The "hop" reference: the real system's shape (HTTP edge -> NATS request/reply -> service ->
// PostgreSQL) written with nothing but Fastify, nats.js and pg, so that
// baseline -> hop isolates what the architecture (two processes and a NATS round trip) costs and
// hop -> gateway what the frameworks (NestJS, @nestjs/microservices, rxjs, class-validator,
// TypeORM) and the rate limiter cost. This is the edge: the gateway's token check (common.js),
// then a NATS request carrying {ctx, data} like RpcClient, answered by hop-bots.js. Unlike
// @nestjs/microservices' ClientNats, which subscribes a fresh reply inbox for every request (a SUB
// and an UNSUB at the NATS server per call), nc.request() shares one wildcard reply subscription.
// Environment: DATABASE_URL, NATS_URL, PORT (0 = any), DB_POOL_SIZE, HOP_SUBJECT.
const fastify = require('fastify');
const { connect } = require('nats');
const { createAuth, createPool, fastifyLike, listen } = require('./common');

const SUBJECT = process.env.HOP_SUBJECT || 'bench.bots.bot.list';

(async () => {
  // noAsyncTraces: nats.js otherwise creates an Error per request() to keep the caller's stack
  // for a timeout (about 15 % of this process's CPU); the real gateway creates none either.
  const nc = await connect({ servers: process.env.NATS_URL, name: 'bench-hop-gateway', noAsyncTraces: true });
  const pool = createPool('bench-hop-gateway');
  const authenticate = createAuth(pool);
  const app = fastifyLike(fastify);

  app.get('/v1/bots', async (req, reply) => {
    const caller = await authenticate(req, reply, 'bots:read');
    if (!caller) return reply;
    const msg = await nc.request(SUBJECT, JSON.stringify({ ctx: { ...caller, requestId: req.id }, data: {} }), { timeout: 5000 });
    const body = JSON.parse(Buffer.from(msg.data).toString('utf8'));
    if (body.err) return reply.code(500).send({ error: body.err });
    return { data: body.response };
  });

  listen(app, async () => {
    await nc.drain();
    await pool.end();
  });
})().catch((err) => {
  process.stderr.write(`hop gateway failed: ${err.stack}\n`);
  process.exit(1);
});
