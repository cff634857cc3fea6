'use strict';
// Issue 33 items 4 and 5: paraphrases offline. The fixture set bench/fixtures/paraphrases
// (passages.jsonl, cases.jsonl: 305 cases over 48 passages in 8 languages) through the default
// retrieval (PostgresVectorStore + hashing embedder) and the extractive responder, compiled in
// dist/, in a fresh database; today's default (TEXT_MATCH=surface) is the baseline, measured in
// the same run as the new default (TEXT_MATCH=stems). bench/lib/paraphrases.js does the work.
//
// Per language: answerable cases answered (reply relevant and quoting the right passage first)
// and unanswerable cases flagged ("nothing found"). Goals: >= 85 % answered and >= 90 % flagged
// in every language.
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const infra = require('./lib/infra');
const { round } = require('./lib/load');
const { evaluate } = require('./lib/paraphrases');

const GOAL_ANSWERED = 0.85;
const GOAL_FLAGGED = 0.9;
const DIST = process.env.BENCH_DIST_DIR ? path.resolve(process.env.BENCH_DIST_DIR) : path.join(infra.ROOT, 'dist');

const pct = (n, d) => (d ? round((100 * n) / d, 1) : null);

module.exports = {
  name: 'paraphrases',
  goal: `extractive answers over the paraphrase fixtures: >= ${GOAL_ANSWERED * 100} % answered, >= ${GOAL_FLAGGED * 100} % unanswerable flagged, in every language (TEXT_MATCH=stems vs surface)`,

  async run(ctx) {
    const storeJs = path.join(DIST, 'apps', 'knowledge', 'src', 'vector-store', 'postgres-vector-store.js');
    if (!fs.existsSync(storeJs)) throw new Error(`${path.relative(infra.ROOT, storeJs)} is missing: build first (npm run build)`);
    const dbName = `sa_bench_${randomBytes(4).toString('hex')}`;
    const dbUrl = infra.databaseUrl(dbName);
    ctx.defer(`drop database ${dbName}`, () => infra.dropDatabase(dbName));
    infra.migrate(dbUrl);
    const pool = infra.pool({ connectionString: dbUrl, max: 4, application_name: 'bench-paraphrases' });
    ctx.defer('close the pool', () => pool.end());

    const result = await evaluate({ dist: DIST, pool, log: ctx.log });
    const rows = [];
    for (const [lang, l] of Object.entries(result.languages)) {
      const answered = pct(l.stems.answered, l.answerable);
      const flagged = pct(l.stems.flagged, l.unanswerable);
      rows.push({
        figure: `${lang}: answered % of ${l.answerable} answerable (${l.noSharedWord} = ${pct(l.noSharedWord, l.answerable)} % share no content word with their passage)`,
        goal: `>= ${GOAL_ANSWERED * 100}`,
        measured: answered,
        baseline: pct(l.surface.answered, l.answerable),
        ratio: l.surface.answered ? round(l.stems.answered / l.surface.answered, 2) : null,
        pass: answered >= GOAL_ANSWERED * 100,
      });
      rows.push({
        figure: `${lang}: unanswerable flagged % of ${l.unanswerable}`,
        goal: `>= ${GOAL_FLAGGED * 100}`,
        measured: flagged,
        baseline: pct(l.surface.flagged, l.unanswerable),
        ratio: l.surface.flagged ? round(l.stems.flagged / l.surface.flagged, 2) : null,
        pass: flagged >= GOAL_FLAGGED * 100,
      });
    }
    const all = Object.values(result.languages).reduce((a, l) => ({ answerable: a.answerable + l.answerable, noSharedWord: a.noSharedWord + l.noSharedWord }), { answerable: 0, noSharedWord: 0 });
    rows.push({ figure: `answerable cases sharing no content word with their passage, % of ${all.answerable}`, goal: '> 50', measured: pct(all.noSharedWord, all.answerable), baseline: null, ratio: null, pass: all.noSharedWord / all.answerable > 0.5 });
    rows.push({ figure: 'ms per case (search + answer)', goal: '-', measured: round(result.timings.stems.perCaseMs, 2), baseline: round(result.timings.surface.perCaseMs, 2), ratio: round(result.timings.stems.perCaseMs / result.timings.surface.perCaseMs, 2), pass: null });
    return { rows, details: result };
  },
};
