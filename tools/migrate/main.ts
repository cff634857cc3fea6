import { DEFAULT_DATABASE_URL } from '@sa/config';
import { runMigrations } from './run-migrations';

// `npm run migrate`: creates the database when missing, applies every app's migrations and gives
// each app's role its own schema. DATABASE_URL is the administrator's; the apps' roles are the
// users of <APP>_DATABASE_URL, or sa_<app> (see docs/configuration.md, database roles).
const url = process.env['DATABASE_URL'] || DEFAULT_DATABASE_URL;
runMigrations(url, (line) => process.stdout.write(`${line}\n`))
  .then((ran) => {
    process.stdout.write(ran.length ? `migrations done (${ran.length} applied)\n` : 'migrations: database is up to date\n');
  })
  .catch((err: unknown) => {
    process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
