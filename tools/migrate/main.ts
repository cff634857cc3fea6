import { DEFAULT_DATABASE_URL } from '@sa/config';
import { runMigrations } from './run-migrations';

// `npm run migrate`: creates the database when missing and applies every app's migrations.
const url = process.env['DATABASE_URL'] || DEFAULT_DATABASE_URL;
runMigrations(url, (line) => process.stdout.write(`${line}\n`))
  .then((ran) => {
    process.stdout.write(ran.length ? `migrations done (${ran.length} applied)\n` : 'migrations: database is up to date\n');
  })
  .catch((err: unknown) => {
    process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
