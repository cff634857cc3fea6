// Lints the Dockerfile (dockerfile-utils: the checks of the VS Code Docker language service)
// and asserts what this project's image must be. Also checks .dockerignore against the
// files the Dockerfile copies.
//   node dockerfile.mjs REPO_ROOT
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { reporter } from './report.mjs';

const root = process.argv[2] ?? '.';
const r = reporter('Dockerfile');
const text = readFileSync(join(root, 'Dockerfile'), 'utf8');

// 1. Lint.
const diagnostics = validate(text, {});
for (const d of diagnostics) {
  const where = `Dockerfile:${d.range.start.line + 1}`;
  if (d.severity === ValidationSeverity.ERROR) r.fail(`lint ${where}`, d.message);
  else r.info(`lint warning ${where}: ${d.message}`);
}
r.ok(!diagnostics.some((d) => d.severity === ValidationSeverity.ERROR), 'dockerfile-utils reports no error');

// 2. Structure.
const df = DockerfileParser.parse(text);
const args = Object.fromEntries(
  df
    .getInstructions()
    .filter((i) => i.getKeyword() === 'ARG')
    .map((i) => i.getArguments()[0]?.getValue().split('='))
    .filter((kv) => kv && kv.length === 2),
);
const expand = (s) => s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args[a ?? b] ?? '');
const froms = df.getFROMs();
r.ok(froms.length >= 2, 'multi-stage (a build stage and a runtime stage)', `${froms.length} stages`);
// Node.js 24, the current LTS line, pinned to its major version and Debian release.
const NODE_IMAGE = 'node:24-bookworm-slim';
for (const f of froms) r.ok(expand(f.getImage()) === NODE_IMAGE, `stage ${f.getBuildStage()} is FROM ${NODE_IMAGE}`, expand(f.getImage()));

// Instructions of each stage.
const stages = [];
for (const i of df.getInstructions()) {
  if (i.getKeyword() === 'FROM') stages.push({ name: i.getBuildStage(), ins: [] });
  else if (stages.length) stages.at(-1).ins.push(i);
}
const runs = (st) => st.ins.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
const build = stages[0];
const runtime = stages.at(-1);
// npm install from the copied lockfile, not npm ci: npm 11 (Node 24's) refuses npm ci with a lockfile
// that lacks other platforms' optional binaries (see the Dockerfile and docs/decisions/deployment.md).
const installs = (c) => /\bnpm (ci|install)\b/.test(c) && !/\bnpm install\s+[^-\s]/.test(c);
const copiesLock = (st) => st.ins.some((i) => i.getKeyword() === 'COPY' && /\bpackage-lock\.json\b/.test(i.getArgumentsContent() ?? ''));
r.ok(copiesLock(build) && runs(build).some((c) => installs(c) && !/--omit=dev/.test(c)), 'build stage: npm install from package-lock.json (all dependencies)');
r.ok(runs(build).some((c) => /\bnode tools\/build\.js\b/.test(c)), 'build stage: node tools/build.js');
r.ok(copiesLock(runtime) && runs(runtime).some((c) => installs(c) && /--omit=dev/.test(c) && /--ignore-scripts/.test(c)), 'runtime stage: npm install --omit=dev --ignore-scripts from package-lock.json');
const copiesFromBuild = runtime.ins.filter((i) => i.getKeyword() === 'COPY' && i.getFlags().some((f) => f.getName() === 'from'));
r.ok(copiesFromBuild.some((i) => /dist/.test(i.getArgumentsContent())), 'runtime stage: copies dist/ from the build stage');
// The gateway serves the visitor widget from dist/apps/widget/embed.js (built by tools/build.js with Vite).
r.ok(copiesFromBuild.some((i) => /(^|\s)\S*dist\/apps\/?\s/.test(`${i.getArgumentsContent()} `)), 'runtime stage: copies dist/apps (with dist/apps/widget/embed.js, the widget script the gateway serves)');
const envs = Object.fromEntries(
  runtime.ins
    .filter((i) => i.getKeyword() === 'ENV')
    .flatMap((i) => i.getProperties().map((p) => [p.getName(), p.getValue()])),
);
r.ok(envs.NODE_ENV === 'production', 'runtime ENV NODE_ENV=production', envs.NODE_ENV);
r.ok(envs.GATEWAY_HOST === '0.0.0.0', 'runtime ENV GATEWAY_HOST=0.0.0.0', envs.GATEWAY_HOST);
r.ok(envs.OPS_HOST === '0.0.0.0', 'runtime ENV OPS_HOST=0.0.0.0 (the ops endpoint reachable from outside the container)', envs.OPS_HOST);
r.ok('APP' in envs, 'runtime ENV APP (the app selector)');
const users = runtime.ins.filter((i) => i.getKeyword() === 'USER').map((i) => i.getArgumentsContent().trim());
const user = users.at(-1) ?? 'root';
r.ok(!/^(root|0)(:|$)/.test(user), 'runtime runs as a non-root USER', user);
r.ok(df.getInstructions().every((i) => i.getKeyword() !== 'HEALTHCHECK'), 'no HEALTHCHECK in the image (compose and Kubernetes probe each app\'s ops endpoint)');
const entry = df.getInstructions().filter((i) => ['ENTRYPOINT', 'CMD'].includes(i.getKeyword()));
r.ok(entry.length > 0, 'ENTRYPOINT or CMD present');

// 3. Build context: every COPY source exists and is not excluded by .dockerignore.
const ignore = existsSync(join(root, '.dockerignore'))
  ? readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
  : [];
for (const p of ['node_modules', 'dist', '.git', 'tmp', 'coverage', '.nx']) r.ok(ignore.includes(p), `.dockerignore excludes ${p}`);
const toRegex = (pattern) =>
  new RegExp(
    '^' +
      pattern
        .replace(/^\/+|\/+$/g, '')
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\/?/g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        .replace(/\u0000/g, '(.*/)?') +
      '$',
  );
// Docker's rule: patterns apply in order and the last one that matches the path, or one of its
// parent directories, decides (a "!" pattern re-includes).
function excluded(path) {
  const parts = path.split('/');
  const prefixes = parts.map((_, n) => parts.slice(0, n + 1).join('/'));
  let out = false;
  for (const p of ignore) {
    const neg = p.startsWith('!');
    const re = toRegex(neg ? p.slice(1) : p);
    if (prefixes.some((x) => re.test(x))) out = !neg;
  }
  return out;
}
for (const st of stages) {
  for (const i of st.ins.filter((x) => x.getKeyword() === 'COPY' && !x.getFlags().some((f) => f.getName() === 'from'))) {
    const a = i.getArguments().map((x) => x.getValue());
    for (const src of a.slice(0, -1)) {
      r.ok(existsSync(join(root, src)), `COPY source ${src} exists`);
      r.ok(!excluded(src), `COPY source ${src} is in the build context (.dockerignore)`);
    }
  }
}
for (const p of ['apps/gateway/src/main.ts', 'deploy/docker/entrypoint.sh', 'package-lock.json']) r.ok(!excluded(p), `${p} is in the build context`);
for (const p of ['apps/widget/vite.config.ts', 'apps/widget/src/main.tsx', 'apps/console/web/vite.config.ts']) r.ok(!excluded(p), `${p} is in the build context (tools/build.js builds it)`);
for (const p of ['node_modules/x', 'dist/apps/gateway/src/main.js', '.git/HEAD', 'deploy/base/kustomization.yaml']) r.ok(excluded(p), `${p} is kept out of the build context`);

r.done();
