import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

// The two publishable packages, as someone outside the monorepo gets them: `npm pack` each
// (its prepack script builds dist/), install the tarballs into a scratch project, compile a small
// file with strict TypeScript and `moduleResolution: NodeNext` (the monorepo's tsc, by path), and
// run it: @support-agent/webhooks signs and verifies the spec's vectors; @support-agent/sdk calls
// an endpoint of a local HTTP server speaking the API's wire format.

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const VECTORS = JSON.parse(fs.readFileSync(path.join(ROOT, 'libs', 'webhooks', 'src', 'testdata', 'webhook-vectors.json'), 'utf8')) as {
  vectors: { secret: string; timestamp: string; raw_body: string; signature: string }[];
};

jest.setTimeout(300_000);

let work: string;
let scratch: string;
const tarballs: Record<string, { file: string; files: string[] }> = {};

async function pack(lib: string): Promise<{ file: string; files: string[] }> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: path.join(ROOT, 'libs', lib), maxBuffer: 16 * 1024 * 1024 });
  // Lifecycle scripts may print before npm's JSON: take the JSON array at the end.
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { filename: string; files: { path: string }[] }[];
  return { file: path.join(work, info.filename), files: info.files.map((f) => f.path).sort() };
}

function node(file: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: scratch, env: { PATH: process.env['PATH'], ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-pack-'));
  tarballs['webhooks'] = await pack('webhooks');
  tarballs['sdk'] = await pack('sdk');

  scratch = path.join(work, 'scratch');
  fs.mkdirSync(path.join(scratch, 'src'), { recursive: true });
  fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, type: 'module' }, null, 2));
  // Both tarballs at once: the SDK's dependency on @support-agent/webhooks is the local one.
  // openapi-fetch comes from npm's cache, or the registry.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', tarballs['webhooks'].file, tarballs['sdk'].file], { cwd: scratch });
  fs.writeFileSync(
    path.join(scratch, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          outDir: 'out',
          rootDir: 'src',
          // The monorepo's @types/node, by path (the scratch project installs only the tarballs).
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('the publishable packages', () => {
  it('pack their built ESM and type declarations, not their sources or tests', () => {
    for (const [lib, { files }] of Object.entries(tarballs)) {
      expect([lib, files]).toEqual([lib, expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/package.json'])]);
      expect([lib, files.filter((f) => !/^(package\.json|README\.md|dist\/.*\.(js|d\.ts)|dist\/package\.json)$/.test(f))]).toEqual([lib, []]);
      expect([lib, files.filter((f) => /spec|testdata|examples|tsbuildinfo/.test(f))]).toEqual([lib, []]);
    }
    const webhooksManifest = JSON.parse(fs.readFileSync(path.join(scratch, 'node_modules', '@support-agent', 'webhooks', 'package.json'), 'utf8'));
    expect(webhooksManifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    const sdkManifest = JSON.parse(fs.readFileSync(path.join(scratch, 'node_modules', '@support-agent', 'sdk', 'package.json'), 'utf8'));
    expect(sdkManifest.dependencies).toEqual(expect.objectContaining({ '@support-agent/webhooks': webhooksManifest.version }));
    expect(JSON.parse(fs.readFileSync(path.join(scratch, 'node_modules', '@support-agent', 'sdk', 'dist', 'package.json'), 'utf8'))).toEqual({ type: 'module' });
  });

  it('@support-agent/webhooks compiles under strict NodeNext and signs and verifies the spec vectors', async () => {
    fs.writeFileSync(
      path.join(scratch, 'src', 'webhooks.ts'),
      `import { signWebhook, verifyWebhook, type VerifyResult } from '@support-agent/webhooks';
const vectors: { secret: string; timestamp: string; raw_body: string; signature: string }[] = ${JSON.stringify(VECTORS.vectors)};
const out: { signed: boolean; verified: boolean; tampered: string }[] = [];
for (const v of vectors) {
  const signature = signWebhook(v.secret, v.timestamp, v.raw_body);
  const headers = { 'x-service-timestamp': v.timestamp, 'x-service-signature': signature, 'x-service-event': 'lead.created' };
  const result: VerifyResult = verifyWebhook({ rawBody: v.raw_body, headers, secret: v.secret, now: Number(v.timestamp) });
  const tampered = verifyWebhook({ rawBody: v.raw_body + ' ', headers, secret: v.secret, now: Number(v.timestamp) });
  out.push({ signed: signature === v.signature, verified: result.ok, tampered: tampered.ok ? 'accepted' : tampered.reason });
}
process.stdout.write(JSON.stringify(out));
`,
    );
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: scratch });
    const r = await node(path.join('out', 'webhooks.js'));
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(VECTORS.vectors.map(() => ({ signed: true, verified: true, tampered: 'signature_mismatch' })));
  });

  it('@support-agent/sdk compiles under strict NodeNext (types flow) and calls the API over HTTP', async () => {
    const seen: { method?: string; url?: string; authorization?: string }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: '7d3f0c1e-2a55-4b7e-9f3e-0d6c5b1a9e42', name: 'Helper', language: 'en', created_at: '2026-01-01T00:00:00.000Z' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      fs.writeFileSync(
        path.join(scratch, 'src', 'sdk.ts'),
        `import { createSupportAgentClient, signWebhook, type Schemas } from '@support-agent/sdk';
const api = createSupportAgentClient({ baseUrl: process.env['BASE_URL'] ?? '', token: 'mgpt_scratch' });
const { data, response } = await api.GET('/bots');
const names: string[] = (data?.data ?? []).map((b) => b.name);
// Never called: the client is typed, so a path the API does not have does not compile.
// @ts-expect-error
export const untyped = () => api.GET('/no-such-path');
const request: Schemas['ChatRequest'] = { message: 'hi' };
process.stdout.write(JSON.stringify({ status: response.status, names, request, signed: signWebhook('test_secret', 1700000000, '{"event":"lead.created"}') }));
`,
      );
      await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: scratch });
      const r = await node(path.join('out', 'sdk.js'), { BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ status: 200, names: ['Helper'], request: { message: 'hi' }, signed: VECTORS.vectors[0].signature });
      expect(seen).toEqual([{ method: 'GET', url: '/v1/bots', authorization: 'Bearer mgpt_scratch' }]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
