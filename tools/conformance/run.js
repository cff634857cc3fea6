#!/usr/bin/env node
'use strict';
/**
 * Runs the official MCP conformance runner (@modelcontextprotocol/conformance) against our MCP
 * server: `npm run conformance` with MCP_TOKEN set to an API token (all scopes) and MCP_URL to the
 * server (default http://127.0.0.1:3001/mcp).
 *
 * The runner needs Node ≥ 22; it runs under the `node-<platform>-<arch>@22` npm package, installed
 * with the runner into tmp/conformance on first use. The runner's client sends no Authorization
 * header, so it talks to a local proxy that adds `Authorization: Bearer <MCP_TOKEN>` and forwards
 * everything else (Host and Origin included) unchanged.
 *
 * Scenarios: the server scenarios that apply to this server (see README, "MCP conformance").
 * Exit code 0 when every scenario passes with no failure and no warning.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const RUNNER_VERSION = '0.1.16';
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const root = path.resolve(__dirname, '..', '..');
const dir = path.join(root, 'tmp', 'conformance');
const nodePackage = `node-${process.platform}-${process.arch}`;
const node22 = path.join(dir, 'node_modules', nodePackage, 'bin', 'node');
const runner = path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

function install() {
  if (fs.existsSync(node22) && fs.existsSync(runner)) return;
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, 'package.json'))) fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"conformance-runner","private":true}\n');
  process.stderr.write(`[conformance] installing @modelcontextprotocol/conformance@${RUNNER_VERSION} and ${nodePackage}@22 into ${dir}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', `@modelcontextprotocol/conformance@${RUNNER_VERSION}`, `${nodePackage}@22`], { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('installing the conformance runner failed');
}

/** Adds the bearer token and forwards to the MCP server; Host and Origin stay as the runner sent them. */
function startProxy(target, token) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const up = http.request(
      { host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function runScenario(url, scenario) {
  return new Promise((resolve) => {
    const child = spawn(node22, [runner, 'server', '--url', url, '--scenario', scenario], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
      const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(plain);
      resolve({ scenario, code, passed: m ? Number(m[1]) : 0, total: m ? Number(m[2]) : 0, failed: m ? Number(m[3]) : -1, warnings: m ? Number(m[4]) : -1, output: plain });
    });
  });
}

async function main() {
  const token = process.env.MCP_TOKEN;
  if (!token) throw new Error('Set MCP_TOKEN to an API token of a live workspace (npm run -s admin -- token create --workspace ID --scopes all)');
  const target = process.env.MCP_URL || 'http://127.0.0.1:3001/mcp';
  install();
  const proxy = await startProxy(target, token);
  // The DNS-rebinding scenario needs a localhost URL; the proxy listens on loopback.
  const url = `http://localhost:${proxy.address().port}/mcp`;
  const results = [];
  try {
    for (const scenario of SCENARIOS) results.push(await runScenario(url, scenario));
  } finally {
    proxy.close();
  }
  let ok = true;
  for (const r of results) {
    const good = r.code === 0 && r.failed === 0 && r.warnings === 0 && r.passed > 0;
    ok &&= good;
    process.stdout.write(`${good ? 'PASS' : 'FAIL'} ${r.scenario}: ${r.passed}/${r.total} passed, ${r.failed} failed, ${r.warnings} warnings\n`);
    if (!good || process.env.CONFORMANCE_VERBOSE) process.stdout.write(`${r.output}\n`);
  }
  process.stdout.write(`conformance: ${results.filter((r) => r.code === 0 && r.failed === 0).length}/${results.length} scenarios passed\n`);
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`conformance: ${err.message}\n`);
  process.exit(2);
});
