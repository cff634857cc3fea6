'use strict';
// Preloaded into the apps (NODE_OPTIONS=--require) by the widget-streams benchmark: on request,
// a full garbage collection, then the process's memory as Node sees it, so memory per open stream
// is measured as what the streams keep alive, not as whatever garbage the last GC left. The
// benchmark writes "gc <n>" into $BENCH_GC_DIR/control; each process, once per new n, collects
// and writes $BENCH_GC_DIR/<SERVICE_NAME>-<GATEWAY_PORT or pid>-<n>.json with process.memoryUsage()
// and how long the collection stopped the process (gcMs).
// A control file, not a signal: Nest's shutdown hooks treat SIGUSR2 as a shutdown signal (as in
// cpu-profile-preload.js). The check is a 200 ms timer that keeps nothing alive.
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

const dir = process.env.BENCH_GC_DIR;
if (dir) {
  // gc() without starting the process with --expose-gc (which NODE_OPTIONS does not accept everywhere).
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const name = `${process.env.SERVICE_NAME || 'process'}-${process.env.SERVICE_NAME === 'gateway' ? process.env.GATEWAY_PORT : process.pid}`;
  const control = path.join(dir, 'control');
  let done = '';
  setInterval(() => {
    let verb = '';
    let n = '';
    try {
      [verb, n] = fs.readFileSync(control, 'utf8').trim().split(/\s+/);
    } catch {
      return;
    }
    if (verb !== 'gc' || !n || n === done) return;
    done = n;
    // One full, stop-the-world collection; how long it stopped the process is reported with it.
    const t0 = process.hrtime.bigint();
    gc();
    const gcMs = Number(process.hrtime.bigint() - t0) / 1e6;
    fs.writeFileSync(path.join(dir, `${name}-${n}.json`), JSON.stringify({ ...process.memoryUsage(), gcMs }));
  }, 200).unref();
}
