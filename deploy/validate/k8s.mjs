// Checks one kustomize rendering (multi-document YAML):
//   1. schema: every object against the Kubernetes OpenAPI schema (kubernetes-models' validators:
//      types, formats, required fields, enums);
//   2. strict fields: the same objects as TypeScript object literals typed with kubernetes-models'
//      interfaces, so a misspelt or misplaced field is an error (the OpenAPI schema alone allows
//      unknown fields; the API server would drop them silently);
//   3. the project's rules (security context, ops-endpoint probes and scraping, policies,
//      autoscaling, ...).
//   node k8s.mjs RENDERED.yaml NAME [--namespace NS]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { reporter } from './report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const [file, name = file] = process.argv.slice(2);
const nsArg = process.argv.indexOf('--namespace');
const expectNamespace = nsArg > 0 ? process.argv[nsArg + 1] : undefined;
const r = reporter(`Kubernetes (${name})`);

const docs = parseAllDocuments(readFileSync(file, 'utf8'));
const objects = docs.map((d) => d.toJS()).filter(Boolean);
r.info(`${objects.length} objects: ${Object.entries(objects.reduce((m, o) => ({ ...m, [o.kind]: (m[o.kind] ?? 0) + 1 }), {})).map(([k, n]) => `${n} ${k}`).join(', ')}`);

// ------------------------------------------------------------------------------------------
// 1. Schema
const modulePath = (o) => `kubernetes-models/${o.apiVersion.includes('/') ? o.apiVersion : `v1`}/${o.kind}`;
let schemaOk = 0;
for (const o of objects) {
  const id = `${o.kind}/${o.metadata?.name}`;
  let Model;
  try {
    Model = (await import(modulePath(o)))[o.kind];
  } catch {
    r.fail(`${id}: known kind`, `no schema for ${o.apiVersion} ${o.kind}`);
    continue;
  }
  try {
    new Model(o).validate();
    schemaOk++;
  } catch (e) {
    r.fail(`${id}: schema`, e.message);
  }
}
r.ok(schemaOk === objects.length, `${schemaOk}/${objects.length} objects valid against the Kubernetes schema`);

// ------------------------------------------------------------------------------------------
// 2. Strict fields through TypeScript's excess-property checks
{
  const dir = mkdtempSync(join(tmpdir(), 'k8s-strict-'));
  try {
    const imports = new Map();
    const lines = objects.map((o, i) => {
      const type = `I${o.kind}`;
      const alias = `${type}_${imports.size}`;
      const key = `${modulePath(o)}|${type}`;
      if (!imports.has(key)) imports.set(key, { mod: modulePath(o), type, alias });
      return `// ${o.kind}/${o.metadata?.name}\nexport const o${i}: ${imports.get(key).alias} = ${JSON.stringify(o, null, 2)};`;
    });
    const src = [...imports.values()].map((m) => `import type { ${m.type} as ${m.alias} } from '${m.mod}';`).join('\n') + '\n' + lines.join('\n');
    writeFileSync(join(dir, 'objects.ts'), src);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [], skipLibCheck: true, typeRoots: [] },
        files: ['objects.ts'],
      }),
    );
    // Resolve kubernetes-models from the tools directory.
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    execFileSync('ln', ['-s', join(here, 'node_modules'), join(dir, 'node_modules')]);
    const tsc = require.resolve('typescript/bin/tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
      r.ok(true, 'no unknown or mistyped field (TypeScript excess-property check)');
    } catch (e) {
      const out = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim();
      // Map "objects.ts(LINE,COL)" back to the object it belongs to.
      const starts = [];
      src.split('\n').forEach((l, n) => {
        const m = /^\/\/ (.*)$/.exec(l);
        if (m) starts.push([n + 1, m[1]]);
      });
      const owner = (line) => [...starts].reverse().find(([n]) => n <= line)?.[1] ?? '?';
      for (const l of out.split('\n').filter((x) => /error TS/.test(x))) {
        const m = /objects\.ts\((\d+),\d+\): (.*)$/.exec(l);
        r.fail(`strict fields${m ? ` in ${owner(Number(m[1]))}` : ''}`, m ? m[2] : l);
      }
      if (!/error TS/.test(out)) r.fail('TypeScript strict-field check ran', out.slice(0, 2000));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------
// 3. Project rules
const APPS = ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'bookings', 'mcp', 'webhook-dispatcher', 'console', 'evaluations', 'channels'];
const HPA_APPS = ['gateway', 'chat', 'knowledge', 'webhook-dispatcher', 'evaluations', 'channels'];
// Each app that owns a schema connects as its own PostgreSQL role, its URL in a Secret of its own.
const DB_APPS = APPS.filter((a) => a !== 'mcp');
const urlVar = (app) => `${app.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;
/** An env entry taken, required, from key DATABASE_URL of the Secret `secret`. */
const fromDbSecret = (entry, secret) => {
  const ref = entry?.valueFrom?.secretKeyRef;
  return ref?.name === secret && ref.key === 'DATABASE_URL' && ref.optional !== true && entry.value === undefined;
};
const OPS_PORT = 9464;
const MONITORING_NS = 'monitoring';
const of = (kind) => objects.filter((o) => o.kind === kind);
const named = (kind, n) => of(kind).find((o) => o.metadata?.name === n);
const matches = (selector, labels) =>
  Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v) &&
  (selector?.matchExpressions ?? []).every((e) =>
    e.operator === 'In' ? e.values.includes(labels?.[e.key]) : e.operator === 'NotIn' ? !e.values.includes(labels?.[e.key]) : e.operator === 'Exists' ? e.key in (labels ?? {}) : !(e.key in (labels ?? {})),
  );

r.ok(of('Secret').length === 0, 'no Secret in the manifests (support-agent-secrets is created per cluster)');
const configMaps = of('ConfigMap').map((c) => c.metadata.name);
r.ok(configMaps.some((n) => n.startsWith('support-agent-config')), 'ConfigMap support-agent-config is generated', configMaps.join(','));
const cm = of('ConfigMap').find((c) => c.metadata.name.startsWith('support-agent-config'));
for (const k of ['NATS_URL', 'GATEWAY_HOST', 'GATEWAY_PORT', 'MCP_HOST', 'MCP_PORT', 'CONSOLE_HOST', 'CONSOLE_PORT']) r.ok(cm?.data?.[k] !== undefined, `ConfigMap sets ${k}`);
r.ok(cm?.data?.OPS_HOST === '0.0.0.0', 'ConfigMap sets OPS_HOST=0.0.0.0 (the kubelet and Prometheus reach the ops endpoint)', cm?.data?.OPS_HOST);
r.ok(cm?.data?.OPS_PORT === String(OPS_PORT), `ConfigMap sets OPS_PORT=${OPS_PORT}`, cm?.data?.OPS_PORT);
const READY_CHECK_TIMEOUT_MS = Number(cm?.data?.READY_CHECK_TIMEOUT_MS ?? 1500);
for (const k of ['DATABASE_URL', 'REDIS_URL']) r.ok(cm?.data?.[k] === undefined, `ConfigMap holds no ${k} (secret)`);

if (expectNamespace) {
  const namespaced = objects.filter((o) => o.kind !== 'Namespace');
  r.ok(namespaced.every((o) => o.metadata?.namespace === expectNamespace), `every object is in namespace ${expectNamespace}`);
  r.ok(named('Namespace', expectNamespace), `Namespace ${expectNamespace} is declared`);
} else {
  r.ok(objects.every((o) => !o.metadata?.namespace), 'namespace-agnostic (no metadata.namespace)');
}

function checkPod(id, spec, podLabels) {
  r.ok(podLabels?.['app.kubernetes.io/part-of'] === 'support-agent', `${id}: pod label app.kubernetes.io/part-of=support-agent (network policies select it)`);
  r.ok(spec.securityContext?.runAsNonRoot === true, `${id}: pod runAsNonRoot`);
  r.ok(spec.automountServiceAccountToken === false, `${id}: no service account token`);
  r.ok(spec.enableServiceLinks === false, `${id}: enableServiceLinks false (GATEWAY_PORT/MCP_PORT collisions)`);
  for (const c of spec.containers ?? []) {
    const sc = c.securityContext ?? {};
    r.ok(sc.runAsNonRoot === true || spec.securityContext?.runAsNonRoot === true, `${id}/${c.name}: runAsNonRoot`);
    r.ok(sc.readOnlyRootFilesystem === true, `${id}/${c.name}: readOnlyRootFilesystem`);
    r.ok(sc.allowPrivilegeEscalation === false, `${id}/${c.name}: allowPrivilegeEscalation false`);
    r.ok((sc.capabilities?.drop ?? []).includes('ALL'), `${id}/${c.name}: drops ALL capabilities`);
    r.ok(/(^|\/)support-agent(:|@)/.test(c.image ?? ''), `${id}/${c.name}: image support-agent`, c.image);
    for (const kind of ['requests', 'limits']) for (const res of ['cpu', 'memory']) r.ok(c.resources?.[kind]?.[res] !== undefined, `${id}/${c.name}: resources.${kind}.${res}`);
    const refs = (c.envFrom ?? []).map((e) => e.configMapRef?.name ?? e.secretRef?.name);
    const cmRef = (c.envFrom ?? []).find((e) => e.configMapRef)?.configMapRef?.name;
    r.ok(cmRef && configMaps.includes(cmRef), `${id}/${c.name}: envFrom ConfigMap ${cmRef} exists`);
    r.ok((c.envFrom ?? []).some((e) => e.secretRef?.name === 'support-agent-secrets'), `${id}/${c.name}: envFrom Secret support-agent-secrets`, refs.join(','));
  }
}

const blobClaim = of('PersistentVolumeClaim').find((o) => o.metadata.name === 'support-agent-blobs');
r.ok(blobClaim?.spec?.accessModes?.includes('ReadWriteMany'), 'PersistentVolumeClaim support-agent-blobs is ReadWriteMany (the console and every knowledge replica)');

const deployments = of('Deployment');
r.ok(JSON.stringify(deployments.map((d) => d.metadata.name).sort()) === JSON.stringify([...APPS].sort()), 'one Deployment per app', deployments.map((d) => d.metadata.name).join(','));
for (const d of deployments) {
  const app = d.metadata.name;
  const pod = d.spec.template;
  const c = pod.spec.containers[0];
  const id = `Deployment/${app}`;
  r.ok(matches(d.spec.selector, pod.metadata.labels), `${id}: selector matches its pod labels`);
  r.ok((c.env ?? []).some((e) => e.name === 'APP' && e.value === app), `${id}: APP=${app}`);
  // Uploaded knowledge files (issue 19): the console and knowledge share one ReadWriteMany claim.
  if (app === 'console' || app === 'knowledge') {
    const vol = (pod.spec.volumes ?? []).find((v) => v.persistentVolumeClaim?.claimName === 'support-agent-blobs');
    r.ok(vol && (c.volumeMounts ?? []).some((m) => m.name === vol.name && m.mountPath === '/var/lib/support-agent/blobs'), `${id}: mounts the claim support-agent-blobs at /var/lib/support-agent/blobs`);
    r.ok(pod.spec.securityContext?.fsGroup === 1000, `${id}: fsGroup 1000 (the shared files volume is writable)`);
  }
  // Webhook signing secrets are encrypted at rest: the dispatcher cannot start without the key.
  const key = (c.env ?? []).find((e) => e.name === 'WEBHOOK_SECRET_KEY');
  // The bots service seals widget identity secrets and model keys with the same key (issues 18,
  // 32); chat, knowledge and evaluations (its judge, issue 33) open the model keys; channels
  // (issue 35) seals its connections' credentials.
  if (['webhook-dispatcher', 'bots', 'chat', 'knowledge', 'evaluations', 'channels'].includes(app)) {
    const ref = key?.valueFrom?.secretKeyRef;
    r.ok(ref?.name === 'support-agent-secrets' && ref.key === 'WEBHOOK_SECRET_KEY' && ref.optional !== true && key.value === undefined, `${id}: WEBHOOK_SECRET_KEY from the Secret support-agent-secrets, required`, JSON.stringify(key));
  } else {
    r.ok(key === undefined, `${id}: no WEBHOOK_SECRET_KEY entry (only the dispatcher, bots, chat, knowledge, evaluations and channels read sealed secrets)`);
  }
  const dbUrl = (c.env ?? []).find((e) => e.name === 'DATABASE_URL');
  if (DB_APPS.includes(app)) r.ok(fromDbSecret(dbUrl, `support-agent-db-${app}`), `${id}: DATABASE_URL (its own role) from the Secret support-agent-db-${app}, required`, JSON.stringify(dbUrl));
  else r.ok(dbUrl === undefined, `${id}: no DATABASE_URL entry (it owns no schema)`, JSON.stringify(dbUrl));
  const others = (c.env ?? []).filter((e) => e.name.endsWith('_DATABASE_URL')).map((e) => e.name);
  r.ok(others.length === 0, `${id}: no other app's database URL`, others.join(','));
  checkPod(id, pod.spec, pod.metadata.labels);
  // Every app serves its ops endpoint (/healthz, /readyz, /metrics) on OPS_PORT, bound to OPS_HOST.
  const metrics = (c.ports ?? []).find((p) => p.name === 'metrics');
  r.ok(metrics?.containerPort === OPS_PORT && (metrics.protocol ?? 'TCP') === 'TCP', `${id}: container port metrics = ${OPS_PORT}/TCP`, JSON.stringify(metrics));
  const onMetrics = (probe, path) => probe?.httpGet?.path === path && ['metrics', OPS_PORT].includes(probe.httpGet.port) && !probe.exec && !probe.tcpSocket && !probe.grpc;
  r.ok(onMetrics(c.startupProbe, '/healthz'), `${id}: startupProbe GET /healthz on port metrics`);
  r.ok(onMetrics(c.livenessProbe, '/healthz'), `${id}: livenessProbe GET /healthz on port metrics`);
  // The ops /readyz (NATS and PostgreSQL of this pod), also for the gateway: its public /readyz
  // on 3000 checks every back-end service and would make every gateway pod unready at once.
  r.ok(onMetrics(c.readinessProbe, '/readyz'), `${id}: readinessProbe GET /readyz on port metrics`);
  r.ok((c.readinessProbe?.timeoutSeconds ?? 1) * 1000 > READY_CHECK_TIMEOUT_MS, `${id}: readiness timeoutSeconds above READY_CHECK_TIMEOUT_MS (${READY_CHECK_TIMEOUT_MS} ms)`, c.readinessProbe?.timeoutSeconds);
  r.ok(JSON.stringify(c.lifecycle?.preStop?.exec?.command) === JSON.stringify(['sleep', '5']), `${id}: preStop sleep 5`);
  const ann = pod.metadata.annotations ?? {};
  r.ok(ann['prometheus.io/scrape'] === 'true' && ann['prometheus.io/port'] === String(OPS_PORT) && ann['prometheus.io/path'] === '/metrics', `${id}: pod annotations prometheus.io/scrape=true, port=${OPS_PORT}, path=/metrics`, JSON.stringify(ann));
  const http = { gateway: 3000, mcp: 3001, console: 3002 }[app];
  if (http) r.ok((c.ports ?? []).some((p) => p.name === 'http' && p.containerPort === http), `${id}: container port http = ${http}`);
  else r.ok((c.ports ?? []).every((p) => p.name === 'metrics'), `${id}: no port but metrics (NATS-only service)`, (c.ports ?? []).map((p) => p.name).join(','));
  if (app === 'knowledge') {
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
    r.ok(env.VECTOR_STORE === 'qdrant' && env.QDRANT_URL === 'http://qdrant:6333', `${id}: VECTOR_STORE=qdrant, QDRANT_URL`);
  }
  if (HPA_APPS.includes(app)) r.ok(d.spec.replicas === undefined, `${id}: no replicas field (its HPA owns the count)`);
  else r.ok(Number.isInteger(d.spec.replicas), `${id}: replicas set`, d.spec.replicas);
}

const job = named('Job', 'migrate');
r.ok(job, 'Job migrate exists');
if (job) {
  const c = job.spec.template.spec.containers[0];
  r.ok(JSON.stringify(c.command) === JSON.stringify(['node', 'dist/tools/migrate/main.js']), 'Job/migrate runs node dist/tools/migrate/main.js', JSON.stringify(c.command));
  r.ok(['Never', 'OnFailure'].includes(job.spec.template.spec.restartPolicy), 'Job/migrate restartPolicy Never/OnFailure');
  const env = (name) => (c.env ?? []).find((e) => e.name === name);
  r.ok(fromDbSecret(env('DATABASE_URL'), 'support-agent-db-admin'), 'Job/migrate: DATABASE_URL (the administrator) from the Secret support-agent-db-admin, required', JSON.stringify(env('DATABASE_URL')));
  for (const app of DB_APPS) {
    r.ok(fromDbSecret(env(urlVar(app)), `support-agent-db-${app}`), `Job/migrate: ${urlVar(app)} from the Secret support-agent-db-${app} (it creates that role)`, JSON.stringify(env(urlVar(app))));
  }
  checkPod('Job/migrate', job.spec.template.spec, job.spec.template.metadata?.labels);
}

// Services and Ingress
const services = of('Service');
r.ok(JSON.stringify(services.map((s) => s.metadata.name).sort()) === JSON.stringify(['console', 'gateway', 'mcp']), 'Services: gateway, mcp and console only', services.map((s) => s.metadata.name).join(','));
for (const s of services) {
  const d = named('Deployment', s.metadata.name);
  r.ok(d && matches({ matchLabels: s.spec.selector }, d.spec.template.metadata.labels), `Service/${s.metadata.name}: selects its Deployment's pods`);
  for (const p of s.spec.ports) {
    const ports = d?.spec.template.spec.containers[0].ports ?? [];
    r.ok(ports.some((cp) => cp.name === p.targetPort || cp.containerPort === p.targetPort), `Service/${s.metadata.name}: targetPort ${p.targetPort} is a container port`);
  }
}
const ingresses = of('Ingress');
r.ok(ingresses.length === 1, 'one Ingress');
const paths = ingresses.flatMap((i) => i.spec.rules.flatMap((rule) => rule.http.paths));
const route = (p) => paths.find((x) => x.path === p);
r.ok(route('/v1')?.backend.service.name === 'gateway', 'Ingress routes /v1 to gateway');
r.ok(route('/widget')?.backend.service.name === 'gateway', 'Ingress routes /widget (the visitor widget: its script and API) to gateway');
r.ok(route('/channels/v1')?.backend.service.name === 'gateway', "Ingress routes /channels/v1 (the providers' webhooks, forwarded to channels) to gateway");
r.ok(route('/mcp')?.backend.service.name === 'mcp', 'Ingress routes /mcp to mcp');
r.ok(route('/')?.backend.service.name === 'console', 'Ingress routes / (the console and its /api) to console');
r.ok(paths.length === 5, 'Ingress exposes only /v1, /widget, /channels/v1, /mcp and / (console)', paths.map((p) => p.path).join(','));
for (const p of paths) {
  const svc = named('Service', p.backend.service.name);
  r.ok(svc?.spec.ports.some((sp) => sp.name === p.backend.service.port.name || sp.port === p.backend.service.port.number), `Ingress ${p.path}: backend port exists on Service/${p.backend.service.name}`);
}

// Autoscaling and disruption budgets
const hpas = of('HorizontalPodAutoscaler');
r.ok(JSON.stringify(hpas.map((h) => h.metadata.name).sort()) === JSON.stringify([...HPA_APPS].sort()), 'HPAs for gateway, chat, knowledge, webhook-dispatcher, evaluations, channels', hpas.map((h) => h.metadata.name).join(','));
for (const h of hpas) {
  const id = `HorizontalPodAutoscaler/${h.metadata.name}`;
  r.ok(h.apiVersion === 'autoscaling/v2', `${id}: autoscaling/v2`);
  r.ok(named(h.spec.scaleTargetRef.kind, h.spec.scaleTargetRef.name), `${id}: target exists`);
  r.ok((h.spec.metrics ?? []).some((m) => m.type === 'Resource' && m.resource.name === 'cpu'), `${id}: CPU metric`);
  r.ok((h.spec.minReplicas ?? 1) <= h.spec.maxReplicas, `${id}: minReplicas <= maxReplicas`, `${h.spec.minReplicas}..${h.spec.maxReplicas}`);
}
for (const d of deployments) {
  const pdbs = of('PodDisruptionBudget').filter((p) => matches(p.spec.selector, d.spec.template.metadata.labels));
  r.ok(pdbs.length === 1, `Deployment/${d.metadata.name}: exactly one PodDisruptionBudget`, `${pdbs.length}`);
  const min = pdbs[0]?.spec.minAvailable;
  const replicas = d.spec.replicas ?? named('HorizontalPodAutoscaler', d.metadata.name)?.spec.minReplicas ?? 1;
  r.ok(!(typeof min === 'number' && min >= replicas), `Deployment/${d.metadata.name}: its PDB still allows a drain`);
}

// Network policies
const policies = of('NetworkPolicy');
const podsOf = (np) => [...deployments.map((d) => [d.metadata.name, d.spec.template.metadata.labels]), ...(job ? [['migrate', job.spec.template.metadata.labels]] : [])].filter(([, l]) => matches(np.spec.podSelector, l)).map(([n]) => n);
const allPods = [...APPS, 'migrate'];
const deny = policies.find((p) => podsOf(p).length === allPods.length && (p.spec.policyTypes ?? []).includes('Ingress') && p.spec.policyTypes.includes('Egress') && !p.spec.ingress?.length && !p.spec.egress?.length);
r.ok(deny, 'a default-deny policy (ingress and egress) selects every pod');
// Ingress: application traffic to gateway (3000), mcp (3001) and console (3002) only; besides that, only the
// ops port of every pod from the monitoring namespace (Prometheus).
const metricsRule = (rule) =>
  (rule.ports ?? []).length > 0 &&
  rule.ports.every((p) => p.port === OPS_PORT && (p.protocol ?? 'TCP') === 'TCP' && p.endPort === undefined) &&
  (rule.from ?? []).length > 0 &&
  rule.from.every((f) => !f.ipBlock && f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === MONITORING_NS && !(f.namespaceSelector.matchExpressions ?? []).length);
const ingressRules = (pod) => policies.filter((p) => podsOf(p).includes(pod)).flatMap((p) => p.spec.ingress ?? []);
const appIngressTo = new Set(policies.filter((p) => (p.spec.ingress ?? []).some((rule) => !metricsRule(rule))).flatMap(podsOf));
r.ok(JSON.stringify([...appIngressTo].sort()) === JSON.stringify(['console', 'gateway', 'mcp']), 'only gateway, mcp and console accept application ingress (every other rule: ops port from the monitoring namespace)', [...appIngressTo].join(','));
for (const [pod, port] of [['gateway', 3000], ['mcp', 3001], ['console', 3002]]) {
  const app = ingressRules(pod).filter((rule) => !metricsRule(rule));
  r.ok(app.length > 0 && app.every((rule) => (rule.ports ?? []).length && rule.ports.every((p) => p.port === port && p.endPort === undefined)), `${pod}: application ingress on port ${port} only`);
}
for (const pod of APPS) r.ok(ingressRules(pod).some(metricsRule), `${pod}: ingress to ${OPS_PORT} from namespace ${MONITORING_NS} (Prometheus)`);
r.ok(policies.some((p) => podsOf(p).length === allPods.length && (p.spec.ingress ?? []).length > 0 && p.spec.ingress.every(metricsRule)), `one policy opens port ${OPS_PORT} of every pod, from namespace ${MONITORING_NS} only`);
// The internet ports of each app that may reach it: HTTP(S), or for channels (issue 35) the
// providers' APIs (443) and mail servers (SMTP 25/465/587, IMAP 143/993). Every other pod: none.
const HTTP_PORTS = [80, 443];
const WEB_PORTS = { bots: HTTP_PORTS, chat: HTTP_PORTS, knowledge: HTTP_PORTS, 'webhook-dispatcher': HTTP_PORTS, evaluations: HTTP_PORTS, channels: [443, 25, 465, 587, 143, 993] };
const egressRules = (pod) => policies.filter((p) => podsOf(p).includes(pod)).flatMap((p) => p.spec.egress ?? []);
const allowsPort = (rules, port, proto = 'TCP') => rules.some((rule) => (rule.ports ?? []).some((p) => p.port === port && (p.protocol ?? 'TCP') === proto));
for (const pod of allPods) {
  const rules = egressRules(pod);
  r.ok(allowsPort(rules, 53, 'UDP') && allowsPort(rules, 53, 'TCP'), `${pod}: may reach DNS (53 UDP/TCP)`);
  for (const [svc, port] of [['postgres', 5432], ['nats', 4222], ['redis', 6379]]) r.ok(allowsPort(rules, port), `${pod}: may reach ${svc} (${port})`);
  const web = rules.filter((rule) => (rule.to ?? []).some((t) => t.ipBlock));
  const webPorts = Object.hasOwn(WEB_PORTS, pod) ? WEB_PORTS[pod] : undefined;
  if (webPorts) {
    r.ok(webPorts.every((port) => allowsPort(web, port)), `${pod}: may reach the internet on ${webPorts.join(', ')}`);
    r.ok(web.every((rule) => (rule.ports ?? []).length && rule.ports.every((p) => webPorts.includes(p.port) && p.endPort === undefined && (p.protocol ?? 'TCP') === 'TCP')), `${pod}: internet egress limited to TCP ${webPorts.join('/')}`);
    for (const rule of web) {
      for (const t of rule.to) {
        if (!t.ipBlock) continue;
        const except = t.ipBlock.except ?? [];
        if (t.ipBlock.cidr === '0.0.0.0/0') {
          for (const cidr of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10', '127.0.0.0/8']) r.ok(except.includes(cidr), `${pod}: internet egress excludes ${cidr}`);
        } else if (t.ipBlock.cidr === '::/0') {
          for (const cidr of ['fc00::/7', 'fe80::/10']) r.ok(except.includes(cidr), `${pod}: IPv6 internet egress excludes ${cidr}`);
        } else {
          r.fail(`${pod}: internet egress ipBlock`, `unexpected cidr ${t.ipBlock.cidr}`);
        }
      }
    }
  } else {
    r.ok(web.length === 0, `${pod}: no internet egress`);
  }
  r.ok(rules.every((rule) => (rule.to ?? []).length > 0), `${pod}: every egress rule names its destination`);
}

r.done();
