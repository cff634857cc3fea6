#!/usr/bin/env node
// Compiles the whole monorepo (apps, libs, tools) into dist/ with tsc, then rewrites the
// @sa/* path aliases to relative requires so that `node dist/apps/<app>/src/main.js` runs as is;
// then builds the console's web application (apps/console/web) with Vite into
// dist/apps/console/web, which the console app serves, and the visitor widget (apps/widget) into
// dist/apps/widget/embed.js, which the gateway serves.
//   --if-stale  skip each part whose sources are not newer than its last successful build
//   --quiet     print nothing on success
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const webDir = path.join(root, 'apps', 'console', 'web');
const webStamp = path.join(root, 'dist', '.web-build-stamp');
const widgetDir = path.join(root, 'apps', 'widget');
const widgetStamp = path.join(root, 'dist', '.widget-build-stamp');
const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');
const ifStale = args.has('--if-stale');

function newestSource(dir, extensions, skip = []) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (skip.includes(full)) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full, extensions, skip));
    else if (extensions.some((ext) => entry.name.endsWith(ext))) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function mtime(file) {
  return fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
}

function isStale(stampFile, newestInput) {
  return !ifStale || !fs.existsSync(stampFile) || newestInput > fs.statSync(stampFile).mtimeMs;
}

// The server side: every .ts/.json under apps, libs and tools except the browser applications'.
const serverStale = isStale(stamp, Math.max(...['apps', 'libs', 'tools'].map((d) => newestSource(path.join(root, d), ['.ts', '.json'], [webDir, widgetDir])), mtime(path.join(root, 'tsconfig.base.json'))));
// The web application: its own sources (scripts, styles, markup, assets, config) and the
// contracts lib, whose framework-free constants (scopes, event names) it imports.
const webStale =
  fs.existsSync(webDir) &&
  isStale(webStamp, Math.max(newestSource(webDir, ['.ts', '.tsx', '.css', '.html', '.json', '.svg', '.png', '.ico']), newestSource(path.join(root, 'libs', 'contracts', 'src'), ['.ts']), mtime(path.join(root, 'package.json'))));
// The visitor widget: its own sources and config only (it imports nothing from the libs).
const widgetStale =
  fs.existsSync(widgetDir) &&
  (isStale(widgetStamp, Math.max(newestSource(widgetDir, ['.ts', '.tsx', '.css', '.json']), mtime(path.join(root, 'package.json')))) ||
    !fs.existsSync(path.join(root, 'dist', 'apps', 'widget', 'embed.js')));
if (!serverStale && !webStale && !widgetStale) process.exit(0);

/** A package's script by its path inside the package (some packages' "exports" hide their bin). */
function bin(pkg, file) {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`, { paths: [root] })), file);
}

// The Vite config is TypeScript in a CommonJS package: bundled by Vite's default config loader,
// which is all Node 20 can load; Vite's notice about its future native loader does not apply.
const env = { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' };

function run(script, binArgs) {
  const result = spawnSync(process.execPath, [script, ...binArgs], { cwd: root, env, stdio: quiet ? ['ignore', 'pipe', 'inherit'] : 'inherit' });
  if (result.status !== 0) {
    if (quiet && result.stdout) process.stderr.write(result.stdout);
    process.exit(result.status ?? 1);
  }
}

if (serverStale) {
  if (!quiet) process.stdout.write('building (tsc)...\n');
  run(bin('typescript', 'bin/tsc'), ['-p', 'tsconfig.build.json']);
  run(bin('tsc-alias', 'dist/bin/index.js'), ['-p', 'tsconfig.build.json']);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, new Date().toISOString());
}
if (webStale) {
  if (!quiet) process.stdout.write('building the console web application (vite)...\n');
  run(bin('vite', 'bin/vite.js'), ['build', '--config', path.join('apps', 'console', 'web', 'vite.config.ts'), '--logLevel', quiet ? 'warn' : 'info']);
  fs.mkdirSync(path.dirname(webStamp), { recursive: true });
  fs.writeFileSync(webStamp, new Date().toISOString());
}
if (widgetStale) {
  if (!quiet) process.stdout.write('building the visitor widget (vite)...\n');
  run(bin('vite', 'bin/vite.js'), ['build', '--config', path.join('apps', 'widget', 'vite.config.ts'), '--logLevel', quiet ? 'warn' : 'info']);
  fs.mkdirSync(path.dirname(widgetStamp), { recursive: true });
  fs.writeFileSync(widgetStamp, new Date().toISOString());
}
if (!quiet) process.stdout.write('built into dist/\n');
