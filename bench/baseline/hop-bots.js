'use strict';
// The service side of the "hop" reference (see hop-gateway.js): a nats.js queue subscriber that
// runs BotsRepository.list's exact SELECT with pg and replies {response} (or {err}), like a Nest
// NATS handler would, without NestJS, class-validator or TypeORM.
// Environment: DATABASE_URL, NATS_URL, DB_POOL_SIZE, HOP_SUBJECT. Reports {ready: true} over IPC.
const { connect } = require('nats');
const { createPool, listBots } = require('./common');

const SUBJECT = process.env.HOP_SUBJECT || 'bench.bots.bot.list';

(async () => {
  const nc = await connect({ servers: process.env.NATS_URL, name: 'bench-hop-bots' });
  const pool = createPool('bench-hop-bots');
  nc.subscribe(SUBJECT, {
    queue: 'bench-hop-bots',
    callback: (err, msg) => {
      if (err) return;
      let ctx;
      try {
        ({ ctx } = JSON.parse(Buffer.from(msg.data).toString('utf8')));
      } catch {
        msg.respond(JSON.stringify({ err: { code: 'validation_failed', message: 'payload must be JSON' } }));
        return;
      }
      listBots(pool, ctx.tenantId, ctx.botIds || null).then(
        (response) => msg.respond(JSON.stringify({ response, isDisposed: true })),
        (e) => msg.respond(JSON.stringify({ err: { code: 'internal_error', message: e.message }, isDisposed: true })),
      );
    },
  });
  await nc.flush();
  const shutdown = async () => {
    try {
      await nc.drain();
      await pool.end();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('disconnect', shutdown);
  if (process.send) process.send({ ready: true });
})().catch((err) => {
  process.stderr.write(`hop bots failed: ${err.stack}\n`);
  process.exit(1);
});
