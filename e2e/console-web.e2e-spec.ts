import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { e2eState } from './support/state';

// The console's static files and client-side routes (serveWebApp) over a built folder made here.
// Run in a child Node process on the compiled code: @fastify/static pulls in an ES module that
// Node loads and jest's CommonJS runtime does not.

interface Answer {
  url: string;
  status: number;
  type?: string;
  cache?: string;
  body: string;
}

function serve(webDir: string, urls: string[]): Answer[] {
  const root = e2eState().root;
  const script = `
    require('reflect-metadata');
    const Fastify = require('fastify');
    const { serveWebApp } = require(${JSON.stringify(path.join(root, 'dist/apps/console/src/http/web-app.js'))});
    (async () => {
      const app = Fastify();
      await serveWebApp(app, ${JSON.stringify(webDir)});
      await app.ready();
      const out = [];
      for (const url of ${JSON.stringify(urls)}) {
        const r = await app.inject({ method: 'GET', url });
        out.push({ url, status: r.statusCode, type: r.headers['content-type'], cache: r.headers['cache-control'], body: r.body });
      }
      await app.close();
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Answer[];
}

describe('console web application files', () => {
  let dir: string;

  beforeAll(() => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'console-web-'));
    dir = path.join(base, 'web');
    fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Console</title><div id="root"></div>');
    fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b3c.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    fs.writeFileSync(path.join(base, 'secret.txt'), 'outside');
  });

  afterAll(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('serves files (hashed assets cached a year), index.html for client-side routes, 404 for /api and missing files, nothing outside', () => {
    const [js, icon, rootPage, signIn, tokens, withQuery, api, missing, ...escapes] = serve(dir, [
      '/assets/app-1a2b3c.js',
      '/favicon.svg',
      '/',
      '/sign-in',
      '/w/6f1c3c5e-3f0a-4d3e-9a55-3b8a1d2c4e5f/tokens',
      '/accept-invitation?x=1',
      '/api/nope',
      '/assets/missing.js',
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
    ]);
    expect([js.status, js.body, js.type, js.cache]).toEqual([200, 'console.log(1)', expect.stringMatching(/javascript/), 'public, max-age=31536000, immutable']);
    expect([icon.status, icon.cache]).toEqual([200, 'no-cache']);
    for (const page of [rootPage, signIn, tokens, withQuery]) expect([page.url, page.status, page.body]).toEqual([page.url, 200, expect.stringContaining('<div id="root">')]);
    expect([api.status, JSON.parse(api.body).code]).toEqual([404, 'not_found']);
    expect(missing.status).toBe(404);
    for (const e of escapes) expect([e.url, e.body.includes('outside')]).toEqual([e.url, false]);
  });

  it('says the web application is not built when its folder is missing', () => {
    const [page] = serve(path.join(dir, 'nowhere'), ['/w/x/tokens']);
    expect([page.status, page.body]).toEqual([200, expect.stringContaining('not built')]);
  });
});
