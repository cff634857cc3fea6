'use strict';
// Preloaded into the apps (NODE_OPTIONS=--require) by `node bench/run.js --cpu-profile`: records a
// V8 CPU profile of each measured window only. The runner writes "start <label> [name,name]" then
// "stop <label>" into $BENCH_CPU_PROFILE_DIR/control; on "stop" each named process writes
// $BENCH_CPU_PROFILE_DIR/<label>/<SERVICE_NAME or BENCH_PROFILE_NAME>-<pid>.cpuprofile (open it in
// Chrome DevTools or summarise it with `node bench/tools/profile-summary.js <dir>`). A control file is
// used instead of a signal because Nest's shutdown hooks treat SIGUSR2 as a shutdown signal.
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');

const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const name = process.env.SERVICE_NAME || process.env.BENCH_PROFILE_NAME || 'process';
  const control = path.join(dir, 'control');
  const session = new inspector.Session();
  session.connect();
  let state = 'idle';
  let label = '';
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  const check = () => {
    let verb = '';
    let want = '';
    let who = '';
    try {
      [verb, want, who = ''] = fs.readFileSync(control, 'utf8').trim().split(/\s+/);
    } catch {
      return;
    }
    const mine = !who || who.split(',').includes(name);
    if (verb === 'start' && mine && want && want !== label && (state === 'idle' || state === 'done')) {
      state = 'starting';
      label = want;
      post('Profiler.enable')
        .then(() => post('Profiler.setSamplingInterval', { interval: 200 }))
        .then(() => post('Profiler.start'))
        .then(() => (state = 'running'))
        .catch(() => (state = 'idle'));
    } else if (verb === 'stop' && want === label && state === 'running') {
      state = 'stopping';
      post('Profiler.stop')
        .then(({ profile }) => {
          fs.mkdirSync(path.join(dir, label), { recursive: true });
          fs.writeFileSync(path.join(dir, label, `${name}-${process.pid}.cpuprofile`), JSON.stringify(profile));
        })
        .finally(() => (state = 'done'));
    }
  };
  setInterval(check, 100).unref();
}
