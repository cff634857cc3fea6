#!/usr/bin/env node
// `npm test`: lint (module boundaries included), typecheck, build, the SDK and console client drift checks, then the unit, integration and
// end-to-end suites against the real PostgreSQL, NATS and Redis. Prints one closing line,
// "tests: N passed, N failed", and exits non-zero when anything failed.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const outDir = path.join(root, 'tmp', 'test-results');
fs.mkdirSync(outDir, { recursive: true });
const only = process.argv.slice(2);

const steps = [
  { name: 'lint', cmd: ['npm', 'run', '-s', 'lint'] },
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', 'tsconfig.json', '--noEmit'] },
  // The console's web application has its own compiler settings (DOM, JSX, bundler resolution).
  { name: 'typecheck-web', cmd: ['npx', 'tsc', '-p', 'apps/console/web/tsconfig.json'] },
  // The visitor widget too (DOM, Preact's JSX).
  { name: 'typecheck-widget', cmd: ['npx', 'tsc', '-p', 'apps/widget/tsconfig.json'] },
  { name: 'build', cmd: [process.execPath, 'tools/build.js', '--if-stale'] },
  // The typed SDK (libs/sdk) must match the OpenAPI document the gateway serves.
  { name: 'sdk', cmd: [process.execPath, 'tools/sdk/generate.js', '--check'] },
  // The console web application's typed client (apps/console/web/src/api) must match the console API's document.
  { name: 'console-api', cmd: [process.execPath, 'tools/console/generate.js', '--check'] },
  { name: 'unit', jest: ['--selectProjects', 'unit'] },
  { name: 'integration', jest: ['--selectProjects', 'integration', '--runInBand'] },
  { name: 'e2e', jest: ['--selectProjects', 'e2e', '--runInBand'] },
].filter((s) => !only.length || only.includes(s.name));

let passed = 0;
let failed = 0;
const failures = [];
for (const step of steps) {
  process.stdout.write(`\n=== ${step.name} ===\n`);
  const started = Date.now();
  let result;
  if (step.jest) {
    const file = path.join(outDir, `${step.name}.json`);
    fs.rmSync(file, { force: true });
    result = spawnSync(process.execPath, [require.resolve('jest/bin/jest', { paths: [root] }), ...step.jest, '--json', `--outputFile=${file}`], { cwd: root, stdio: 'inherit' });
    if (fs.existsSync(file)) {
      const r = JSON.parse(fs.readFileSync(file, 'utf8'));
      passed += r.numPassedTests;
      failed += r.numFailedTests;
      if (r.numTotalTests === 0) failures.push(`${step.name}: no tests ran`);
    }
  } else {
    result = spawnSync(step.cmd[0], step.cmd.slice(1), { cwd: root, stdio: 'inherit' });
  }
  process.stdout.write(`--- ${step.name}: ${result.status === 0 ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  if (result.status !== 0) failures.push(step.name);
}

process.stdout.write(`\n${failures.length ? `failed steps: ${failures.join(', ')}\n` : ''}`);
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(failures.length || failed ? 1 : 0);
