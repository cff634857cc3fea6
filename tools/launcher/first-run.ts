import { Client } from 'pg';
import { SETUP_NEEDED_SQL, generateSetupCode } from '@sa/people';

/**
 * First-run setup (issue 31): on an installation nobody has set up, `npm start` makes the setup
 * code, hands it to the console app (CONSOLE_SETUP_CODE, so the app does not log it again) and
 * prints it with the console address. Returns the line to print, or null when there is nothing to
 * set up. A code the operator gave in CONSOLE_SETUP_CODE is used and not printed.
 */
export async function prepareSetupCode(env: NodeJS.ProcessEnv): Promise<string | null> {
  const client = new Client({ connectionString: env['DATABASE_URL'] });
  await client.connect();
  try {
    const { rows } = await client.query<{ needed: boolean }>(SETUP_NEEDED_SQL);
    if (!rows[0]?.needed) return null;
  } finally {
    await client.end();
  }
  if (env['CONSOLE_SETUP_CODE']) return 'Setup code:        the one in CONSOLE_SETUP_CODE';
  const code = generateSetupCode();
  env['CONSOLE_SETUP_CODE'] = code;
  return `Setup code:        ${code}   (open the console to set up the installation; it works once)`;
}
