// Parses every YAML file given (all documents in each), strictly: duplicate keys, bad
// indentation, tabs and unresolved aliases are errors.
//   node yaml-parse.mjs FILE...
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { reporter } from './report.mjs';

const r = reporter('YAML');
let docs = 0;
for (const file of process.argv.slice(2)) {
  const all = parseAllDocuments(readFileSync(file, 'utf8'), { uniqueKeys: true, merge: true, prettyErrors: true });
  const list = Array.isArray(all) ? all : [all];
  const errors = list.flatMap((d) => d.errors ?? []);
  const warnings = list.flatMap((d) => d.warnings ?? []);
  if (r.ok(errors.length === 0, `${file} parses`, errors.map((e) => e.message).join('; '))) {
    for (const d of list) d.toJS({ maxAliasCount: 1000 });
    docs += list.length;
  }
  for (const w of warnings) r.info(`warning ${file}: ${w.message}`);
}
r.info(`${process.argv.length - 2} files, ${docs} documents`);
r.done();
