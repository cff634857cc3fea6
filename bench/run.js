#!/usr/bin/env node
'use strict';
// Benchmark runner (`npm run bench`). Runs the registered benchmark modules one after the other
// and prints one table: figure, goal, measured, baseline, ratio, pass/fail. Each module exports
// { name, goal, run(ctx) } where run resolves to { rows, invalid?, details? }:
//   rows:    [{ figure, goal, measured, baseline, ratio, pass: true | false | null (info) }]
//   invalid: reasons the measurement cannot be trusted (errors, non-2xx, ...): exit code 1
//   details: anything else, written to bench/results/<name>-<timestamp>.json with the rows.
// ctx gives: options (parsed flags), log(line), defer(label, fn) to register a cleanup (run in
// reverse order when the module ends, fails, or the run is interrupted), keepLogs().
//
// Usage: node bench/run.js [--only name[,name]] [--duration s] [--connections n] [--warmup s]
//                          [--no-redis] [--no-memory-variant] [--no-hop] [--env KEY=VALUE]... [--strict]
//                          [--keep-logs] [--cpu-profile] [--list]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { stopAll } = require('./lib/load');

// --smoke: small sizes, unless set explicitly; the goals are not judged (no --strict). Set before
// the benchmark modules load: some read their sizes when loaded.
const SMOKE_SIZES = {
  BENCH_RETRIEVAL_CHUNKS: '3000',
  BENCH_RETRIEVAL_QUERIES: '50',
  BENCH_RETRIEVAL_1M_CHUNKS: '20000',
  BENCH_RETRIEVAL_1M_QUERIES: '40',
  BENCH_RETRIEVAL_1M_EXACT_MAX_BYTES: '0',
  BENCH_CHAT_CHUNKS: '200',
  BENCH_CHAT_REQUESTS: '30',
  BENCH_CHAT_WARMUP: '5',
  BENCH_CHAT_TIMELINE: '0',
  BENCH_INGEST_RUNS: '1',
  BENCH_INGEST_WARMUPS: '0',
  BENCH_INGEST_BACKLOG: '20',
  BENCH_WEBHOOKS_LOAD_RATE: '200',
  BENCH_WEBHOOKS_LATENCY_RATE: '20',
  BENCH_WEBHOOKS_BUSY_RATE: '100',
  BENCH_WEBHOOKS_SCALE_RATE: '200',
};
if (process.argv.slice(2).includes('--smoke')) for (const [k, v] of Object.entries(SMOKE_SIZES)) if (!process.env[k]) process.env[k] = v;

/** The registry: add new benchmark modules here. */
const BENCHMARKS = [require('./gateway-bots.bench'), require('./retrieval.bench'), require('./ingest.bench'), require('./chat.bench'), require('./webhooks.bench'), require('./widget.bench'), require('./paraphrases.bench'), require('./crawl-1000.bench'), require('./failover.bench'), require('./widget-streams.bench'), require('./retrieval-1m.bench')];

const USAGE = `Usage: node bench/run.js [options]
  --only <name[,name]>   run only these benchmarks (${BENCHMARKS.map((b) => b.name).join(', ')})
  --duration <s>         seconds of each measured run (default 10; webhooks: of each phase)
  --warmup <s>           seconds of warm-up before each measured run, discarded (default 3)
  --connections <n>      concurrent HTTP connections (default 50)
  --no-redis             do not use Redis for the gateway's rate limiter (in-memory only)
  --no-memory-variant    skip the extra gateway run with the in-memory rate limiter
  --no-hop               skip the reference run of the system's shape without NestJS
                         (Fastify -> NATS -> pg, bench/baseline/hop-*.js)
  --env KEY=VALUE        extra environment for every app (repeatable), e.g. --env DB_POOL_SIZE=20
  --strict               exit 1 when a goal is missed (by default only invalid runs exit 1)
  --keep-logs            keep the apps' log files (kept anyway when a run fails)
  --cpu-profile          record a V8 CPU profile of every app during each measured run (slows
                         them down); summarise with node bench/tools/profile-summary.js <dir>
  --smoke                every benchmark at a small size (seconds, not minutes): checks that each
                         runs and measures validly (CI); its figures say nothing about the goals
  --list                 list the benchmarks and exit`;

function parseArgs(argv) {
  const o = { only: null, duration: 10, warmup: 3, connections: 50, redis: true, memoryVariant: true, hop: true, env: {}, strict: false, keepLogs: false, list: false, cpuProfile: false };
  const num = (flag, v, min) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`${flag} needs a number >= ${min} (got ${v})`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes('=') && argv[i].startsWith('--') && !argv[i].startsWith('--env=') ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--only':
        o.only = value().split(',').map((s) => s.trim()).filter(Boolean);
        break;
      case '--duration':
        o.duration = num(flag, value(), 1);
        break;
      case '--warmup':
        o.warmup = num(flag, value(), 0);
        break;
      case '--connections':
        o.connections = Math.floor(num(flag, value(), 1));
        break;
      case '--no-redis':
        o.redis = false;
        break;
      case '--no-hop':
        o.hop = false;
        break;
      case '--no-memory-variant':
        o.memoryVariant = false;
        break;
      case '--env': {
        const kv = value();
        const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/s.exec(kv);
        if (!m) throw new Error(`--env takes KEY=VALUE (got ${kv})`);
        o.env[m[1]] = m[2];
        break;
      }
      case '--strict':
        o.strict = true;
        break;
      case '--cpu-profile':
        o.cpuProfile = true;
        break;
      case '--keep-logs':
        o.keepLogs = true;
        break;
      case '--list':
        o.list = true;
        break;
      case '--smoke':
        o.smoke = true;
        break;
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${argv[i]}\n${USAGE}`);
    }
  }
  if (o.smoke) {
    o.duration = Math.min(o.duration, 2);
    o.warmup = Math.min(o.warmup, 1);
    o.connections = Math.min(o.connections, 10);
    o.memoryVariant = false;
    o.strict = false;
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Cleanup: LIFO, run once, also on SIGINT/SIGTERM and uncaught errors.
const cleanups = [];
let aborted = false;
let failed = false;

function log(line) {
  process.stderr.write(`[bench] ${line}\n`);
}

async function runCleanups() {
  while (cleanups.length) {
    const { label, fn } = cleanups.pop();
    try {
      await fn();
    } catch (err) {
      log(`cleanup "${label}" failed: ${err && err.message}`);
    }
  }
}

function defer(label, fn) {
  if (aborted) {
    // Interrupted while the module was still starting things: undo this one at once.
    void Promise.resolve().then(fn).catch(() => undefined);
    return;
  }
  cleanups.push({ label, fn });
}

function onSignal(signal) {
  if (aborted) {
    log(`${signal} again: exiting without finishing the cleanup`);
    process.exit(130);
  }
  aborted = true;
  failed = true;
  log(`${signal}: stopping the load and cleaning up (apps, nats-server, database)...`);
  stopAll();
  runCleanups().finally(() => process.exit(130));
}
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));
process.on('SIGHUP', () => onSignal('SIGHUP'));

// ---------------------------------------------------------------------------------------------
function fmt(v) {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(v >= 100 ? 1 : v >= 10 ? 2 : 3).replace(/\.?0+$/, '');
  return String(v);
}

function table(rows) {
  const head = ['benchmark', 'figure', 'goal', 'measured', 'baseline', 'ratio', 'result'];
  const body = rows.map((r) => [r.bench, r.figure, r.goal, fmt(r.measured), fmt(r.baseline), fmt(r.ratio), r.pass === null || r.pass === undefined ? 'info' : r.pass ? 'PASS' : 'FAIL']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const numeric = new Set([3, 4, 5]);
  const line = (cells) => `| ${cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => (numeric.has(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(head), sep, ...body.map(line)].join('\n');
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: `${cpus.length} x ${cpus[0] ? cpus[0].model.trim() : 'unknown'}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  if (options.list) {
    for (const b of BENCHMARKS) process.stdout.write(`${b.name}: ${b.goal}\n`);
    return 0;
  }
  const unknown = (options.only || []).filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')} (have ${BENCHMARKS.map((b) => b.name).join(', ')})\n`);
    return 2;
  }
  const selected = BENCHMARKS.filter((b) => !options.only || options.only.includes(b.name));
  const host = machine();
  log(`machine: ${host.cpu}, ${host.memoryGiB} GiB, ${host.os}, node ${host.node}, load average ${host.loadAverageAtStart.join(' ')}`);
  log(`options: ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s per measurement`);

  const resultsDir = path.join(__dirname, 'results');
  const allRows = [];
  const invalid = [];
  const errors = [];
  for (const bench of selected) {
    if (aborted) break;
    log(`=== ${bench.name}: ${bench.goal}`);
    const startedAt = new Date();
    let benchFailed = false;
    const ctx = {
      options,
      log: (l) => log(`${bench.name}: ${l}`),
      defer,
      keepLogs: () => options.keepLogs || benchFailed || failed,
    };
    try {
      const out = await bench.run(ctx);
      if (aborted) break;
      const rows = out.rows.map((r) => ({ bench: bench.name, ...r }));
      allRows.push(...rows);
      for (const why of out.invalid || []) invalid.push(`${bench.name}: ${why}`);
      if ((out.invalid || []).length) benchFailed = true;
      fs.mkdirSync(resultsDir, { recursive: true });
      const file = path.join(resultsDir, `${bench.name}-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
      fs.writeFileSync(file, `${JSON.stringify({ name: bench.name, goal: bench.goal, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), machine: host, options, rows: out.rows, invalid: out.invalid || [], details: out.details || {} }, null, 2)}\n`);
      log(`${bench.name}: results written to ${path.relative(process.cwd(), file)}`);
    } catch (err) {
      benchFailed = true;
      failed = true;
      errors.push(`${bench.name}: ${err && err.stack ? err.stack : err}`);
      log(`${bench.name} FAILED: ${err && err.stack ? err.stack : err}`);
    } finally {
      await runCleanups();
    }
  }
  if (aborted) return 130;

  if (allRows.length) process.stdout.write(`\n${table(allRows)}\n\n`);
  if (invalid.length) {
    process.stdout.write(`${'!'.repeat(78)}\nINVALID MEASUREMENT: requests failed, so the figures above cannot be trusted:\n${invalid.map((l) => `  - ${l}`).join('\n')}\n${'!'.repeat(78)}\n`);
  }
  if (errors.length) process.stdout.write(`BENCHMARK FAILED:\n${errors.map((l) => `  - ${l.split('\n')[0]}`).join('\n')}\n`);
  const missed = allRows.filter((r) => r.pass === false);
  if (missed.length && !invalid.length) process.stdout.write(`goals missed: ${missed.length} of ${allRows.filter((r) => r.pass !== null).length}\n`);
  if (invalid.length || errors.length) return 1;
  return options.strict && missed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err) => {
    log(`unexpected failure: ${err && err.stack ? err.stack : err}`);
    await runCleanups();
    process.exit(1);
  },
);
