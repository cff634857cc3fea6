#!/usr/bin/env node
// `npm start`: build (skipped when dist/ is up to date), then run the compiled launcher.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const build = spawnSync(process.execPath, [path.join(root, 'tools', 'build.js'), '--if-stale'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
require(path.join(root, 'dist', 'tools', 'launcher', 'main.js'));
