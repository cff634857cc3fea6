'use strict';
// CPU accounting over a measured window, from /proc: CPU seconds per group of processes (apps,
// nats-server, postgres, ...), the bench process itself, the machine's busy time, and the busy
// time no process of the benchmark accounts for (other load on the machine: a noise check).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
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

const readText = (file) => {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

/**
 * This process's CPU cgroups, each as `{ root, dir }` (its hierarchy's mount, its own group):
 * `unified` (cgroup v2), and on v1 `cpu` (quotas) and `cpuacct` (accounting); null where absent.
 */
function ownCgroups() {
  const out = { unified: null, cpu: null, cpuacct: null };
  for (const line of (readText('/proc/self/cgroup') || '').split('\n')) {
    const [, controllers, group] = line.split(':');
    if (group === undefined) continue;
    const rel = group === '/' ? '' : group;
    if (controllers === '') {
      if (fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) out.unified = { root: '/sys/fs/cgroup', dir: `/sys/fs/cgroup${rel}` };
      continue;
    }
    for (const c of ['cpu', 'cpuacct']) {
      if (!controllers.split(',').includes(c)) continue;
      const mount = [`/sys/fs/cgroup/${c}`, '/sys/fs/cgroup/cpu,cpuacct'].find((m) => fs.existsSync(m));
      if (mount) out[c] = { root: mount, dir: `${mount}${rel}` };
    }
  }
  return out;
}

/**
 * How many processors' worth of time this process may use: the machine's, or less when a CPU
 * cgroup quota holds it (as bench/tools/cpu-limit.sh does to emulate a slower machine). cgroup v2
 * (`cpu.max`) or v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`), the smallest quota from the
 * process's group up to the root.
 */
function cpusAvailable(groups = ownCgroups()) {
  let cpus = os.cpus().length;
  const up = ({ root, dir }, quotaOf) => {
    for (let d = dir; d.startsWith(root); d = path.dirname(d)) {
      const q = quotaOf(d);
      if (q !== null) cpus = Math.min(cpus, q);
      if (d === root) break;
    }
  };
  if (groups.unified) {
    up(groups.unified, (d) => {
      const [quota, period] = (readText(`${d}/cpu.max`) || 'max').split(' ');
      return quota !== 'max' && Number(period) > 0 ? Number(quota) / Number(period) : null;
    });
  }
  if (groups.cpu) {
    up(groups.cpu, (d) => {
      const quota = Number(readText(`${d}/cpu.cfs_quota_us`));
      const period = Number(readText(`${d}/cpu.cfs_period_us`));
      return quota > 0 && period > 0 ? quota / period : null;
    });
  }
  return cpus;
}

/**
 * CPU seconds used so far by every process of this process's cgroup, when it is not the root one
 * (bench/tools/cpu-limit.sh makes one): v2 `cpu.stat` usage_usec, v1 `cpuacct.usage`. null when
 * unknown.
 */
function groupCpuSeconds(groups) {
  const own = (g) => g && g.dir !== g.root;
  if (own(groups.unified)) {
    const usec = /^usage_usec (\d+)$/m.exec(readText(`${groups.unified.dir}/cpu.stat`) || '');
    if (usec) return Number(usec[1]) / 1e6;
  }
  if (own(groups.cpuacct)) {
    const ns = readText(`${groups.cpuacct.dir}/cpuacct.usage`);
    if (ns !== null) return Number(ns) / 1e9;
  }
  return null;
}

/**
 * Starts measuring how busy the processors this process may use are (see cpusAvailable); the
 * returned function ends it: `{ cpusAvailable, busyOfAvailablePercent }`. Held to a quota, the
 * machine's busy time says nothing of the group's, so it counts what the group used (every process
 * in it), or, where that cannot be read, `accountedPercent` (% of one core) if given, else null.
 */
function busyMeter() {
  const groups = ownCgroups();
  const available = cpusAvailable(groups);
  const held = available < os.cpus().length;
  const groupBefore = held ? groupCpuSeconds(groups) : null;
  const machineBefore = machineTicks();
  const t0 = now();
  return (accountedPercent = null) => {
    const wallS = (now() - t0) / 1000;
    const machineAfter = machineTicks();
    const groupAfter = groupBefore === null ? null : groupCpuSeconds(groups);
    const machineBusy = ((machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total)) * 100 * os.cpus().length;
    const used = !held ? machineBusy : groupAfter !== null ? ((groupAfter - groupBefore) / Math.max(1e-3, wallS)) * 100 : accountedPercent;
    return { cpusAvailable: round(available, 2), busyOfAvailablePercent: used === null ? null : round((used / (available * 100)) * 100, 1) };
  };
}

/**
 * Starts a measurement; the returned function ends it. `groupsOf()` lists the pids of each group;
 * it is read at the start, every `sampleMs` meanwhile and at the end, so a process that appears
 * during the window (a new PostgreSQL backend when a pool grows) is charged with all of its CPU
 * time, and one that exits before the end keeps what it used until its last sample. The bench
 * process is its own group.
 */
async function cpuMeter(groupsOf, selfLabel = 'bench process', { sampleMs = 500 } = {}) {
  const processors = busyMeter();
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
      ...processors(accounted),
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

module.exports = { cpuMeter, busyMeter, cpuSecondsOf };
