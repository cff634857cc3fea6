'use strict';
// CPU accounting over a measured window, from /proc: CPU seconds per group of processes (apps,
// nats-server, postgres, ...), the bench process itself, the machine's busy time, and the busy
// time no process of the benchmark accounts for (other load on the machine: a noise check).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { round } = require('./load');

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** CPU seconds (user + system) a process has used so far; `gone` (0) once it has exited. */
function cpuSecondsOf(pid, gone = 0) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return gone;
  }
}

/** CPU seconds of every process on the machine, with its command name. */
function allProcesses() {
  const out = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), s: (Number(f[11]) + Number(f[12])) / CLK_TCK });
    } catch {
      // gone
    }
  }
  return out;
}

/** Jiffies of the whole machine: busy, total, interrupt work and steal. */
function machineTicks() {
  const v = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] || 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total, interrupts: (v[5] || 0) + (v[6] || 0), steal: v[7] || 0 };
}

/**
 * Starts a measurement; the returned function ends it. `groupsOf()` lists the pids of each group;
 * it is read at the start, every `sampleMs` meanwhile and at the end, so a process that appears
 * during the window (a new PostgreSQL backend when a pool grows) is charged with all of its CPU
 * time, and one that exits before the end keeps what it used until its last sample. The bench
 * process is its own group.
 */
async function cpuMeter(groupsOf, selfLabel = 'bench process', { sampleMs = 500 } = {}) {
  const self = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const seen = new Map(); // pid -> { group, before, last }
  const note = (groups, initial) => {
    for (const [k, pids] of Object.entries(groups)) {
      for (const p of pids) {
        const c = cpuSecondsOf(p, null);
        const s = seen.get(p);
        if (s) {
          if (c !== null) s.last = c;
        } else if (c !== null) seen.set(p, { group: k, before: initial ? c : 0, last: c });
      }
    }
  };
  note(await groupsOf(), true);
  let sampling = null;
  const timer = setInterval(() => {
    if (sampling) return;
    sampling = groupsOf()
      .then((g) => note(g, false))
      .catch(() => undefined)
      .finally(() => (sampling = null));
  }, sampleMs);
  timer.unref();
  const selfBefore = self();
  const everyBefore = allProcesses();
  const machineBefore = machineTicks();
  const t0 = now();
  return async () => {
    clearInterval(timer);
    await sampling;
    const wallS = (now() - t0) / 1000;
    const machineAfter = machineTicks();
    const end = await groupsOf();
    note(end, false);
    const seconds = Object.fromEntries(Object.keys(end).map((k) => [k, 0]));
    for (const s of seen.values()) seconds[s.group] = (seconds[s.group] || 0) + Math.max(0, s.last - s.before);
    seconds[selfLabel] = self() - selfBefore;
    const charged = new Set([process.pid, ...seen.keys()]);
    const others = [];
    for (const [pid, p] of allProcesses()) {
      if (charged.has(pid)) continue;
      const used = p.s - (everyBefore.get(pid)?.s ?? 0);
      if (used > 0) others.push({ pid, comm: p.comm, percent: round((used / wallS) * 100, 1) });
    }
    others.sort((a, b) => b.percent - a.percent);
    const percent = Object.fromEntries(Object.entries(seconds).map(([k, s]) => [k, round((s / wallS) * 100, 1)]));
    const share = (k) => ((machineAfter[k] - machineBefore[k]) / Math.max(1, machineAfter.total - machineBefore.total)) * 100 * os.cpus().length;
    const busy = share('busy');
    const interrupts = share('interrupts');
    const accounted = Object.values(percent).reduce((a, b) => a + b, 0);
    return {
      wallS: round(wallS, 2),
      seconds,
      percentOfOneCore: percent,
      machineBusyPercent: round(busy, 1),
      interruptsPercent: round(interrupts, 1),
      stealPercent: round(share('steal'), 1),
      otherProcessesPercent: round(Math.max(0, busy - accounted - interrupts), 1),
      busiestOtherProcesses: others.slice(0, 6),
    };
  };
}

module.exports = { cpuMeter, cpuSecondsOf };
