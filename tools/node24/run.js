#!/usr/bin/env node
'use strict';
/**
 * Runs a command under Node.js 24, the image's runtime, whatever Node runs this script:
 *
 *   node tools/node24/run.js npm test          # the whole test suite under Node 24 (CI does this)
 *   node tools/node24/run.js node --version
 *
 * Node 24 comes from the npm registry as the `node-<platform>-<arch>@24` package (a plain binary,
 * as tools/conformance/run.js gets Node 22), installed into tmp/node24 on first use and reused
 * after; NODE24_REFRESH=1 installs the newest 24.x again. Its bin directory goes first on PATH, so
 * everything the command starts through PATH (`npm`, `npx`, jest, and whatever they spawn with
 * `process.execPath`: the apps, the migrate and admin tools) runs on Node 24 too. The command's
 * exit code is this script's.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const MAJOR = 24;
const root = path.resolve(__dirname, '..', '..');
const dir = path.join(root, 'tmp', `node${MAJOR}`);
const nodePackage = `node-${process.platform}-${process.arch}`;
const bin = path.join(dir, 'node_modules', nodePackage, 'bin');
const node = path.join(bin, process.platform === 'win32' ? 'node.exe' : 'node');

function install() {
  if (fs.existsSync(node) && !process.env.NODE24_REFRESH) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `{"name":"node${MAJOR}-runtime","private":true}\n`);
  process.stderr.write(`[node${MAJOR}] installing ${nodePackage}@${MAJOR} into ${path.relative(root, dir)}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', `${nodePackage}@${MAJOR}`], { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0 || !fs.existsSync(node)) throw new Error(`installing ${nodePackage}@${MAJOR} failed`);
}

function main() {
  const [cmd, ...args] = process.argv.slice(2);
  if (!cmd) {
    process.stderr.write('usage: node tools/node24/run.js <command> [args...]\n');
    return 2;
  }
  install();
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  // The Node that PATH now finds first must be this one: else the command would silently run on another.
  const found = spawnSync('node', ['-p', 'process.version'], { env, encoding: 'utf8' });
  const version = found.stdout?.trim() ?? '';
  if (found.status !== 0 || !version.startsWith(`v${MAJOR}.`)) throw new Error(`node on PATH is ${version || 'missing'}, not Node ${MAJOR}`);
  process.stderr.write(`[node${MAJOR}] ${version} (${path.relative(root, node)}) first on PATH: ${[cmd, ...args].join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd: process.cwd(), env, stdio: 'inherit' });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

try {
  process.exit(main());
} catch (err) {
  process.stderr.write(`[node${MAJOR}] ${err.message}\n`);
  process.exit(1);
}
