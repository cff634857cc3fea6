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
 * Scenarios: the server scenarios that apply to this server (see docs/mcp.md, "MCP conformance").
 * Exit code 0 when every scenario passes with no failure and no warning.
 *
 * Authorization (issue 17): with CONFORMANCE_AS_URL (the console's origin, the authorization
 * server's issuer) the runner's authorization server scenarios run too (`conformance
 * authorization`, which only the 0.2 line of the runner has: installed beside, into
 * tmp/conformance-auth): authorization-server-metadata-endpoint; and, with CONFORMANCE_CLIENT_ID
 * (a client registered with the redirect URI http://127.0.0.1:<CONFORMANCE_CALLBACK_PORT,
 * 3000>/callback), authorization-code-grant, which needs a person: the authorization URL is
 * printed as `AUTHORIZE <url>`; open it, sign in and "Allow". CONFORMANCE_RESOURCE is the resource
 * parameter (default MCP_URL). See docs/mcp.md, "MCP conformance", for which pass.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const RUNNER_VERSION = '0.1.16';
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const AUTH_RUNNER_VERSION = '0.2.0-alpha.12';
const AUTH_SCENARIOS = ['authorization-server-metadata-endpoint', 'authorization-code-grant'];

const root = path.resolve(__dirname, '..', '..');
const dir = path.join(root, 'tmp', 'conformance');
const nodePackage = `node-${process.platform}-${process.arch}`;
const node22 = path.join(dir, 'node_modules', nodePackage, 'bin', 'node');
const runner = path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

const paths = (d) => ({
  dir: d,
  node22: path.join(d, 'node_modules', nodePackage, 'bin', 'node'),
  runner: path.join(d, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
});

function install(at = paths(dir), version = RUNNER_VERSION) {
  if (fs.existsSync(at.node22) && fs.existsSync(at.runner) && installedVersion(at.dir) === version) return;
  fs.mkdirSync(at.dir, { recursive: true });
  if (!fs.existsSync(path.join(at.dir, 'package.json'))) fs.writeFileSync(path.join(at.dir, 'package.json'), '{"name":"conformance-runner","private":true}\n');
  process.stderr.write(`[conformance] installing @modelcontextprotocol/conformance@${version} and ${nodePackage}@22 into ${at.dir}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', `@modelcontextprotocol/conformance@${version}`, `${nodePackage}@22`], { cwd: at.dir, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('installing the conformance runner failed');
}

function installedVersion(d) {
  try {
    return JSON.parse(fs.readFileSync(path.join(d, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * The runner's authorization server scenarios, in one run (authorization-code-grant reads the
 * metadata the first scenario fetched). The authorization URL is relayed at once as `AUTHORIZE <url>`.
 */
function runAuthorization({ issuer, clientId, resource, port }) {
  const at = paths(path.join(root, 'tmp', 'conformance-auth'));
  install(at, AUTH_RUNNER_VERSION);
  // Without a client the runner skips authorization-code-grant; only the metadata scenario is reported.
  const scenarios = clientId ? AUTH_SCENARIOS : AUTH_SCENARIOS.slice(0, 1);
  const args = [at.runner, 'authorization', '--url', issuer, '--port', String(port)];
  if (clientId) args.push('--client-id', clientId);
  if (resource) args.push('--resource', resource);
  return new Promise((resolve) => {
    const child = spawn(at.node22, args, { cwd: at.dir, env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let pending = '';
    const take = (d) => {
      out += d;
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const plain = line.replace(/\x1b\[[0-9;]*m/g, '').trim();
        if (/^https?:\/\/\S+[?&]code_challenge=/.test(plain)) process.stdout.write(`AUTHORIZE ${plain}\n`);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => {
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
      resolve(
        scenarios.map((scenario) => {
          const m = new RegExp(`[✓✗] ${scenario}: (\\d+) passed, (\\d+) failed`).exec(plain);
          const passed = m ? Number(m[1]) : 0;
          const failed = m ? Number(m[2]) : -1;
          const start = plain.indexOf(`=== Running scenario: ${scenario} ===`);
          const segment = start < 0 ? plain : plain.slice(start, plain.indexOf('\n=== ', start + 10) >>> 0 || undefined);
          const warnings = (segment.match(/\] WARNING /g) || []).length;
          return { scenario, code: failed === 0 && passed > 0 ? 0 : code || 1, passed, total: passed + Math.max(failed, 0), failed, warnings, output: segment };
        }),
      );
    });
  });
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
  const issuer = process.env.CONFORMANCE_AS_URL;
  if (!token && !issuer) throw new Error('Set MCP_TOKEN to an API token of a live workspace (npm run -s admin -- token create --workspace ID --scopes all), and/or CONFORMANCE_AS_URL and CONFORMANCE_CLIENT_ID for the authorization server');
  const target = process.env.MCP_URL || 'http://127.0.0.1:3001/mcp';
  const results = [];
  if (token) {
    install();
    const proxy = await startProxy(target, token);
    // The DNS-rebinding scenario needs a localhost URL; the proxy listens on loopback.
    const url = `http://localhost:${proxy.address().port}/mcp`;
    try {
      for (const scenario of SCENARIOS) results.push(await runScenario(url, scenario));
    } finally {
      proxy.close();
    }
  }
  if (issuer) {
    const clientId = process.env.CONFORMANCE_CLIENT_ID || undefined;
    const port = Number(process.env.CONFORMANCE_CALLBACK_PORT || 3000);
    results.push(...(await runAuthorization({ issuer, clientId, resource: process.env.CONFORMANCE_RESOURCE || target, port })));
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
