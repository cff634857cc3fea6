import { counter, enableProcessMetrics, gauge, histogram, metricNameProblems, metricsRegistry } from './metrics';

/** `# TYPE <name> <type>` of an exposition, as a map from name to type. */
function types(exposition: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(m[1], m[2]);
  return out;
}

describe('the process metrics and the naming rules promtool checks', () => {
  let exposition: string;

  beforeAll(async () => {
    enableProcessMetrics('unit');
    // What the libs declare through the helpers, as an app would.
    counter({ name: 'sa_unit_things_total', help: 'things', labelNames: ['outcome'] as const }).inc({ outcome: 'ok' });
    histogram({ name: 'sa_unit_thing_duration_seconds', help: 'durations' }).observe(0.2);
    gauge({ name: 'sa_unit_things_open', help: 'open things' }).set(3);
    exposition = await metricsRegistry.metrics();
  });

  it('uses the standard process_* and nodejs_* names (no prefix), so stock Node.js dashboards work', () => {
    const names = [...types(exposition).keys()];
    for (const standard of [
      'process_cpu_user_seconds_total',
      'process_cpu_seconds_total',
      'process_start_time_seconds',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_active_handles',
      'nodejs_gc_duration_seconds',
      'nodejs_version_info',
    ]) {
      expect(names).toContain(standard);
    }
    expect(names.filter((n) => n.startsWith('sa_process_') || n.startsWith('sa_nodejs_'))).toEqual([]);
  });

  it('has no gauge named like a counter and no counter without _total (promtool check metrics)', () => {
    const wrong = [...types(exposition)].filter(([name, type]) => (type === 'counter') !== name.endsWith('_total'));
    expect(wrong).toEqual([]);
    expect(metricNameProblems(exposition)).toEqual([]);
    expect(exposition).not.toMatch(/^nodejs_active_(handles|requests|resources)_total/m);
  });

  it('metricNameProblems names each broken rule', () => {
    const text = [
      '# HELP a_total x',
      '# TYPE a_total gauge',
      'a_total 1',
      '# HELP b_count x',
      '# TYPE b_count counter',
      'b_count 1',
      '# HELP fooBar x',
      '# TYPE fooBar gauge',
      'fooBar 1',
      '# TYPE c_seconds histogram',
      'c_seconds_bucket{le="+Inf"} 1',
    ].join('\n');
    expect(metricNameProblems(text)).toEqual([
      'a_total: a gauge must not end in _total',
      'b_count: a counter must end in _total',
      'fooBar: not snake_case',
      'c_seconds: no HELP text',
    ]);
  });

  it('the helpers refuse a name that breaks the rules when it is declared, not when it is scraped', () => {
    expect(() => counter({ name: 'sa_unit_requests', help: 'x' })).toThrow('counter sa_unit_requests: a counter name must end in _total');
    expect(() => gauge({ name: 'sa_unit_open_total', help: 'x' })).toThrow('gauge sa_unit_open_total: only counters end in _total');
    expect(() => histogram({ name: 'sa_unit_latency_total', help: 'x' })).toThrow('histogram sa_unit_latency_total: only counters end in _total');
  });
});
