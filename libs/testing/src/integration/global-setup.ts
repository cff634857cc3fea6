import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { TEMPLATE_DATABASE, databaseUrl, dropDatabase } from './databases';

/** Migrates the template database once per run with the real migrate command. */
export default async function globalSetup(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..', '..', '..');
  await dropDatabase(TEMPLATE_DATABASE);
  const build = spawnSync(process.execPath, ['tools/build.js', '--if-stale', '--quiet'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  const migrate = spawnSync(process.execPath, ['dist/tools/migrate/main.js'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl(TEMPLATE_DATABASE) },
    encoding: 'utf8',
  });
  if (migrate.status !== 0) throw new Error(`migrating the template database failed:\n${migrate.stdout}\n${migrate.stderr}`);
}
