import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, register } from 'prom-client';

/**
 * The process's Prometheus metrics: one registry (prom-client's default), the Node.js process
 * metrics, and get-or-create helpers so a metric declared by a lib used in several places (or a
 * test that builds a module twice) is registered once.
 */
export const metricsRegistry: Registry = register;
let defaultsOn = false;

/**
 * prom-client's defaults that are gauges named like counters (promtool: "non-counter metrics should
 * not have _total suffix"). Each has a per-type twin without the suffix (`nodejs_active_handles{type}`
 * and so on) whose sum is the same number.
 */
const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * The standard Node.js process metrics under their usual names (`process_*`, `nodejs_*`, no
 * prefix), so stock dashboards and alerts work; every series carries the label `service`.
 */
export function enableProcessMetrics(service: string): void {
  if (defaultsOn) return;
  defaultsOn = true;
  metricsRegistry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: metricsRegistry });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) metricsRegistry.removeSingleMetric(name);
}

const SNAKE_CASE = /^[a-z_:][a-z0-9_:]*$/;

/** Why a metric name breaks the rules promtool checks, or null when it does not. */
function nameProblem(name: string, type: string): string | null {
  if (!SNAKE_CASE.test(name)) return 'not snake_case';
  if (type === 'counter' && !name.endsWith('_total')) return 'a counter must end in _total';
  if (type !== 'counter' && name.endsWith('_total')) return `a ${type} must not end in _total`;
  return null;
}

function assertName(name: string, type: 'counter' | 'gauge' | 'histogram'): void {
  if (!SNAKE_CASE.test(name)) throw new Error(`${type} ${name}: a metric name is snake_case`);
  if (type === 'counter' && !name.endsWith('_total')) throw new Error(`${type} ${name}: a counter name must end in _total`);
  if (type !== 'counter' && name.endsWith('_total')) throw new Error(`${type} ${name}: only counters end in _total`);
}

/**
 * The naming problems in a Prometheus text exposition, one line each (`<name>: <problem>`): the
 * rules of `promtool check metrics` about names and help, for tests that run without promtool.
 */
export function metricNameProblems(exposition: string): string[] {
  const helped = new Set([...exposition.matchAll(/^# HELP (\S+) /gm)].map((m) => m[1]));
  const problems: string[] = [];
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const problem = nameProblem(name, type);
    if (problem) problems.push(`${name}: ${problem}`);
    else if (!helped.has(name)) problems.push(`${name}: no HELP text`);
  }
  return problems;
}

/** Request/response latencies in seconds: 5 ms to 30 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Config<T extends string> = { name: string; help: string; labelNames?: readonly T[] };

export function counter<T extends string>(cfg: Config<T>): Counter<T> {
  assertName(cfg.name, 'counter');
  return (metricsRegistry.getSingleMetric(cfg.name) as Counter<T> | undefined) ?? new Counter<T>({ ...cfg, labelNames: cfg.labelNames ?? [], registers: [metricsRegistry] });
}

export function histogram<T extends string>(cfg: Config<T> & { buckets?: number[] }): Histogram<T> {
  assertName(cfg.name, 'histogram');
  return (
    (metricsRegistry.getSingleMetric(cfg.name) as Histogram<T> | undefined) ??
    new Histogram<T>({ ...cfg, labelNames: cfg.labelNames ?? [], buckets: cfg.buckets ?? LATENCY_BUCKETS, registers: [metricsRegistry] })
  );
}

export function gauge<T extends string>(cfg: Config<T> & { collect?: (this: Gauge<T>) => void | Promise<void> }): Gauge<T> {
  assertName(cfg.name, 'gauge');
  return (metricsRegistry.getSingleMetric(cfg.name) as Gauge<T> | undefined) ?? new Gauge<T>({ ...cfg, labelNames: cfg.labelNames ?? [], registers: [metricsRegistry] });
}

/**
 * Several gauges read from one sample per scrape (one database query for all of them, however
 * many gauges): `sample` runs at most once per `maxAgeMs`, and each gauge takes its value from
 * each row of the result.
 */
export function sampledGauges<K extends string, L extends string>(
  gauges: Record<K, { name: string; help: string }>,
  labelNames: readonly L[],
  sample: () => Promise<{ labels: Record<L, string>; values: Record<K, number> }[]>,
  maxAgeMs = 1000,
): void {
  let last: { at: number; rows: ReturnType<typeof sample> } | null = null;
  const rows = () => {
    if (!last || Date.now() - last.at > maxAgeMs) last = { at: Date.now(), rows: sample().catch(() => []) };
    return last.rows;
  };
  for (const key of Object.keys(gauges) as K[]) {
    gauge({
      ...gauges[key],
      labelNames,
      async collect() {
        this.reset();
        for (const row of await rows()) this.set(row.labels, row.values[key]);
      },
    });
  }
}
