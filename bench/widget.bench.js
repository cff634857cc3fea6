'use strict';
// Issue #18: the visitor widget's size. `embed.js` is what every visitor of every customer site
// downloads, so it must stay at most 40 KB gzipped. Measured on the built file
// (dist/apps/widget/embed.js, `node tools/build.js`; `npm run bench` builds first), gzip level 9
// as servers and CDNs compress it; brotli (quality 11) as information.
// Baseline, measured in the same run: Preact's own minified runtime and hooks
// (node_modules/preact/dist/preact.mjs + hooks/dist/hooks.mjs), gzipped the same way: the floor
// any Preact widget carries. The ratio says how much the widget weighs against its framework.
// Also checked: no `eval(` or `new Function(` in the bundle (it must run under a strict CSP).
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const ROOT = path.resolve(__dirname, '..');
const EMBED = path.join(ROOT, 'dist', 'apps', 'widget', 'embed.js');
const GOAL_KB = 40;

const kb = (bytes) => Math.round((bytes / 1024) * 100) / 100;
const gzip = (buf) => zlib.gzipSync(buf, { level: 9 }).length;
const brotli = (buf) => zlib.brotliCompressSync(buf, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

function preactRuntime() {
  const dir = path.dirname(require.resolve('preact/package.json', { paths: [ROOT] }));
  return Buffer.concat([fs.readFileSync(path.join(dir, 'dist', 'preact.mjs')), fs.readFileSync(path.join(dir, 'hooks', 'dist', 'hooks.mjs'))]);
}

module.exports = {
  name: 'widget',
  goal: `embed.js <= ${GOAL_KB} KB gzipped`,
  async run(ctx) {
    if (!fs.existsSync(EMBED)) return { rows: [], invalid: [`${path.relative(ROOT, EMBED)} is missing: run node tools/build.js`] };
    const code = fs.readFileSync(EMBED);
    const base = preactRuntime();
    const measured = kb(gzip(code));
    const baseline = kb(gzip(base));
    const forbidden = (code.toString('utf8').match(/\beval\s*\(|\bnew\s+Function\s*\(/g) || []).length;
    ctx.log(`embed.js: ${code.length} bytes, ${gzip(code)} gzipped, ${brotli(code)} brotli; preact + hooks: ${base.length} bytes, ${gzip(base)} gzipped`);
    return {
      rows: [
        { figure: 'embed.js gzipped, KB (gzip -9)', goal: `<= ${GOAL_KB} KB`, measured, baseline, ratio: Math.round((measured / baseline) * 100) / 100, pass: measured <= GOAL_KB },
        { figure: 'embed.js brotli, KB (quality 11)', goal: '-', measured: kb(brotli(code)), baseline: kb(brotli(base)), ratio: Math.round((brotli(code) / brotli(base)) * 100) / 100, pass: null },
        { figure: 'embed.js minified, KB', goal: '-', measured: kb(code.length), baseline: kb(base.length), ratio: Math.round((code.length / base.length) * 100) / 100, pass: null },
        { figure: 'eval( / new Function( in embed.js', goal: '0', measured: forbidden, baseline: null, ratio: null, pass: forbidden === 0 },
      ],
      details: { file: path.relative(ROOT, EMBED), bytes: code.length, gzip: gzip(code), brotli: brotli(code), baseline: { what: 'preact/dist/preact.mjs + preact/hooks/dist/hooks.mjs', bytes: base.length, gzip: gzip(base) } },
    };
  },
};
