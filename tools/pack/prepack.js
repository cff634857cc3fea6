#!/usr/bin/env node
// The prepack script of the publishable packages (libs/webhooks, libs/sdk): `npm pack` there
// compiles the package (its tsconfig.pack.json, and the packages it references) into ES modules
// and type declarations in its own dist/, then marks dist/ as ESM (dist/package.json: the
// package's own package.json stays format-neutral, so the monorepo keeps compiling the same
// sources to CommonJS into the root dist/ with tools/build.js).
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const config = path.join(process.cwd(), 'tsconfig.pack.json');
if (!fs.existsSync(config)) {
  process.stderr.write(`prepack: no tsconfig.pack.json in ${process.cwd()}\n`);
  process.exit(1);
}

/** This package's folder and those of the packages its tsconfig.pack.json references. */
function packageDirs(file) {
  const { references = [] } = JSON.parse(fs.readFileSync(file, 'utf8'));
  const dir = path.dirname(file);
  return [dir, ...references.flatMap((r) => packageDirs(path.resolve(dir, r.path.endsWith('.json') ? r.path : path.join(r.path, 'tsconfig.pack.json'))))];
}

const dirs = [...new Set(packageDirs(config))];
// A fresh build, so that nothing stale is packed.
for (const dir of dirs) fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [root] }), '-b', '--force', config], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
for (const dir of dirs) fs.writeFileSync(path.join(dir, 'dist', 'package.json'), '{\n  "type": "module"\n}\n');
