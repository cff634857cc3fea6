import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, register } from 'prom-client';

/**
 * The process's Prometheus metrics: one registry (prom-client's default), the Node.js process
 * metrics, and get-or-create helpers so a metric declared by a lib used in several places (or a
 * test that builds a module twice) is registered once.
 */
export const metricsRegistry: Registry = register;
let defaultsOn = false;

export function enableProcessMetrics(service: string): void {
  if (defaultsOn) return;
  defaultsOn = true;
  metricsRegistry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: metricsRegistry, prefix: 'sa_' });
}

/** Request/response latencies in seconds: 5 ms to 30 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Config<T extends string> = { name: string; help: string; labelNames?: readonly T[] };

export function counter<T extends string>(cfg: Config<T>): Counter<T> {
  return (metricsRegistry.getSingleMetric(cfg.name) as Counter<T> | undefined) ?? new Counter<T>({ ...cfg, labelNames: cfg.labelNames ?? [], registers: [metricsRegistry] });
}

export function histogram<T extends string>(cfg: Config<T> & { buckets?: number[] }): Histogram<T> {
  return (
    (metricsRegistry.getSingleMetric(cfg.name) as Histogram<T> | undefined) ??
    new Histogram<T>({ ...cfg, labelNames: cfg.labelNames ?? [], buckets: cfg.buckets ?? LATENCY_BUCKETS, registers: [metricsRegistry] })
  );
}

export function gauge<T extends string>(cfg: Config<T> & { collect?: (this: Gauge<T>) => void | Promise<void> }): Gauge<T> {
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
