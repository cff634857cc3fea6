'use strict';
// One HTTP load measurement with autocannon (programmatic API): a warm-up run that is thrown
// away, then the measured run, with the CPU time every interesting process used meanwhile.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const autocannon = require('autocannon');

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** Instances in flight, so an interrupted run can stop them. */
const inflight = new Set();

function stopAll() {
  for (const i of inflight) i.stop();
}

function fire(opts) {
  return new Promise((resolve, reject) => {
    const inst = autocannon(opts, (err, result) => {
      inflight.delete(inst);
      if (err) reject(err);
      else resolve(result);
    });
    inflight.add(inst);
  });
}

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
function cpuSecondsOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** Busy and total jiffies of the whole machine (every core), from /proc/stat. */
function machineTicks() {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] || 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/**
 * Runs `warmupS` seconds of load (discarded) then `durationS` seconds measured.
 * `cpuGroups` maps a label to a function returning the pids to account to it (resolved after the
 * warm-up, when every pool connection is open); the bench process itself (the autocannon client)
 * is always accounted as "load generator (autocannon)".
 */
async function measure({ url, headers = {}, connections, durationS, warmupS, cpuGroups = {}, counters = {}, title, hooks = {} }) {
  const base = { url, headers, connections, pipelining: 1, timeout: 10, title };
  if (warmupS > 0) await fire({ ...base, duration: warmupS });

  const groups = {};
  for (const [label, pidsOf] of Object.entries(cpuGroups)) groups[label] = (await pidsOf()).filter(Boolean);
  const before = {};
  for (const [label, pids] of Object.entries(groups)) before[label] = pids.reduce((s, p) => s + cpuSecondsOf(p), 0);
  const countersBefore = await sampleCounters(counters);
  if (hooks.beforeMeasured) await hooks.beforeMeasured();
  const selfBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const t0 = process.hrtime.bigint();

  const r = await fire({ ...base, duration: durationS });

  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const machineAfter = machineTicks();
  const self = process.cpuUsage(selfBefore);
  const cpu = {};
  for (const [label, pids] of Object.entries(groups)) {
    cpu[label] = pids.reduce((s, p) => s + cpuSecondsOf(p), 0) - before[label];
  }
  const countersAfter = await sampleCounters(counters);
  const perRequest = {};
  for (const k of Object.keys(countersAfter)) {
    if (countersBefore[k] !== null && countersAfter[k] !== null) perRequest[k] = round((countersAfter[k] - countersBefore[k]) / Math.max(1, r.requests.total), 2);
  }
  if (hooks.afterMeasured) await hooks.afterMeasured();
  cpu['load generator (autocannon)'] = (self.user + self.system) / 1e6;
  // Percent of ONE core over the measured run (200 % = both cores of a 2-core machine).
  const cpuPercent = Object.fromEntries(Object.entries(cpu).map(([k, s]) => [k, round((s / wallS) * 100, 1)]));
  const machineBusyPercent = round(((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100 * cpuCount(), 1);
  const accounted = Object.values(cpuPercent).reduce((a, b) => a + b, 0);

  return {
    url,
    connections,
    durationS: r.duration,
    requestsPerSecond: round(r.requests.average, 1),
    requestsTotal: r.requests.total,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, p999: r.latency.p99_9, max: r.latency.max, mean: round(r.latency.mean, 2) },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats || {}).map(([k, v]) => [k, v.count])),
    cpuPercentOfOneCore: cpuPercent,
    cpuMicrosecondsPerRequest: Object.fromEntries(Object.entries(cpu).map(([k, sec]) => [k, round((sec * 1e6) / Math.max(1, r.requests.total), 1)])),
    perRequest,
    machineBusyPercent,
    otherProcessesPercent: round(Math.max(0, machineBusyPercent - accounted), 1),
    loadAverage: require('node:os').loadavg().map((x) => round(x, 2)),
  };
}

/** Reads every counter (e.g. NATS messages, PostgreSQL transactions); null when one fails. */
async function sampleCounters(counters) {
  const out = {};
  for (const [k, read] of Object.entries(counters)) {
    try {
      out[k] = await read();
    } catch {
      out[k] = null;
    }
  }
  return out;
}

function cpuCount() {
  return require('node:os').cpus().length;
}

function round(x, digits) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Problems that make a measurement invalid (errors, timeouts, non-2xx answers). */
function invalidity(m) {
  const bad = m.errors + m.timeouts + m.non2xx;
  return bad ? `${m.errors} errors, ${m.timeouts} timeouts, ${m.non2xx} non-2xx (status codes ${JSON.stringify(m.statusCodes)})` : null;
}

module.exports = { measure, stopAll, invalidity, round };
