#!/usr/bin/env node
'use strict';
// Summarises the .cpuprofile files that `node bench/run.js --cpu-profile` wrote:
// self time per process, grouped by where the code lives (repository code, each npm package,
// Node.js internals, GC), and the hottest functions.
//   node bench/tools/profile-summary.js <dir-or-file>... [--top N]
const fs = require('node:fs');
const path = require('node:path');

function files(args) {
  const out = [];
  for (const a of args) {
    if (fs.statSync(a).isDirectory()) {
      for (const f of fs.readdirSync(a).sort()) if (f.endsWith('.cpuprofile')) out.push(path.join(a, f));
    } else out.push(a);
  }
  return out;
}

function where(url, fn) {
  if (!url) {
    if (fn === '(garbage collector)') return '(gc)';
    if (fn === '(idle)') return '(idle)';
    if (fn === '(program)') return '(program: native/VM)';
    return '(native)';
  }
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (u.startsWith('node:')) return 'node: core';
  const m = /\/dist\/((?:apps|libs|tools)\/[^/]+)/.exec(u);
  if (m) return `repo ${m[1]}`;
  if (u.includes('/bench/')) return 'bench';
  return u;
}

function summarise(file, top) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i + 1] ?? 0;
    selfUs.set(p.samples[i], (selfUs.get(p.samples[i]) || 0) + dt);
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const groups = new Map();
  const fns = new Map();
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    const cf = n.callFrame;
    const g = where(cf.url, cf.functionName);
    groups.set(g, (groups.get(g) || 0) + us);
    const key = `${cf.functionName || '(anonymous)'}  ${g}${cf.url ? `:${path.basename(cf.url)}:${cf.lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) || 0) + us);
  }
  const idle = groups.get('(idle)') || 0;
  const busy = total - idle;
  const pct = (us) => `${((us / busy) * 100).toFixed(1).padStart(5)} %`;
  const lines = [`${path.basename(file)}: ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(2)} s busy (${((busy / total) * 100).toFixed(0)} %); shares of busy time:`];
  for (const [g, us] of [...groups].filter(([g]) => g !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(us)}  ${g}`);
  lines.push('  hottest functions (self):');
  for (const [f, us] of [...fns].filter(([f]) => !f.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(us)}  ${f}`);
  return lines.join('\n');
}

const args = process.argv.slice(2);
let top = 15;
const ti = args.indexOf('--top');
if (ti >= 0) {
  top = Number(args[ti + 1]) || top;
  args.splice(ti, 2);
}
if (!args.length) {
  process.stderr.write('usage: node bench/tools/profile-summary.js <dir-or-file>... [--top N]\n');
  process.exit(2);
}
for (const f of files(args)) process.stdout.write(`${summarise(f, top)}\n\n`);
