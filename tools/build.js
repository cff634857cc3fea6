#!/usr/bin/env node
// Compiles the whole monorepo (apps, libs, tools) into dist/ with tsc, then rewrites the
// @sa/* path aliases to relative requires so that `node dist/apps/<app>/src/main.js` runs as is.
//   --if-stale  skip when no .ts source is newer than the last successful build
//   --quiet     print nothing on success
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');

function newestSource(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

if (args.has('--if-stale') && fs.existsSync(stamp)) {
  const built = fs.statSync(stamp).mtimeMs;
  const sources = Math.max(...['apps', 'libs', 'tools'].map((d) => newestSource(path.join(root, d))), fs.statSync(path.join(root, 'tsconfig.base.json')).mtimeMs);
  if (sources <= built) process.exit(0);
}

function run(bin, binArgs) {
  const result = spawnSync(process.execPath, [require.resolve(bin, { paths: [root] }), ...binArgs], { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'inherit'] : 'inherit' });
  if (result.status !== 0) {
    if (quiet && result.stdout) process.stderr.write(result.stdout);
    process.exit(result.status ?? 1);
  }
}

if (!quiet) process.stdout.write('building (tsc)...\n');
run('typescript/bin/tsc', ['-p', 'tsconfig.build.json']);
run('tsc-alias/dist/bin/index.js', ['-p', 'tsconfig.build.json']);
fs.mkdirSync(path.dirname(stamp), { recursive: true });
fs.writeFileSync(stamp, new Date().toISOString());
if (!quiet) process.stdout.write('built into dist/\n');
