import { DEFAULT_DATABASE_URL } from './common';
import { SCHEMA_OWNER_APPS, appDatabaseEnv, appDatabaseUrl, databaseUrlVariable, defaultDatabaseRole, ownsSchema } from './databases';

describe('database URLs per app', () => {
  it('names one role and one variable per schema-owning app; mcp owns none', () => {
    expect(SCHEMA_OWNER_APPS.map((a) => [a, defaultDatabaseRole(a), databaseUrlVariable(a)])).toEqual([
      ['gateway', 'sa_gateway', 'GATEWAY_DATABASE_URL'],
      ['bots', 'sa_bots', 'BOTS_DATABASE_URL'],
      ['knowledge', 'sa_knowledge', 'KNOWLEDGE_DATABASE_URL'],
      ['chat', 'sa_chat', 'CHAT_DATABASE_URL'],
      ['leads', 'sa_leads', 'LEADS_DATABASE_URL'],
      ['bookings', 'sa_bookings', 'BOOKINGS_DATABASE_URL'],
      ['webhook-dispatcher', 'sa_webhook_dispatcher', 'WEBHOOK_DISPATCHER_DATABASE_URL'],
      ['console', 'sa_console', 'CONSOLE_DATABASE_URL'],
      ['evaluations', 'sa_evaluations', 'EVALUATIONS_DATABASE_URL'],
      ['channels', 'sa_channels', 'CHANNELS_DATABASE_URL'],
    ]);
    expect(ownsSchema('mcp')).toBe(false);
    expect(ownsSchema('toString')).toBe(false);
  });

  it("derives an app's URL from the base URL: the app's role instead of the user, without the base's password", () => {
    expect(appDatabaseUrl('chat', {})).toBe(DEFAULT_DATABASE_URL.replace('postgres@', 'sa_chat@'));
    expect(appDatabaseUrl('webhook-dispatcher', { DATABASE_URL: 'postgresql://admin:s3cret@db.internal:6432/sa?sslmode=require' })).toBe(
      'postgresql://sa_webhook_dispatcher@db.internal:6432/sa?sslmode=require',
    );
    // A base URL without a user (libpq's default user) gets the role too.
    expect(appDatabaseUrl('bots', { DATABASE_URL: 'postgres://127.0.0.1/x' })).toBe('postgres://sa_bots@127.0.0.1/x');
  });

  it("keeps a base URL that already names the app's role, password included", () => {
    expect(appDatabaseUrl('gateway', { DATABASE_URL: 'postgres://sa_gateway:pw@db/sa' })).toBe('postgres://sa_gateway:pw@db/sa');
  });

  it('prefers the per-app variable, as given', () => {
    const env = { DATABASE_URL: 'postgres://admin@db/sa', BOOKINGS_DATABASE_URL: 'postgres://bookings_svc:pw@pgbouncer:6432/sa' };
    expect(appDatabaseUrl('bookings', env)).toBe('postgres://bookings_svc:pw@pgbouncer:6432/sa');
    expect(appDatabaseUrl('leads', env)).toBe('postgres://sa_leads@db/sa');
  });

  it("gives a child process its own URL as DATABASE_URL and no other app's; an app without a schema gets none", () => {
    const env = { DATABASE_URL: 'postgres://admin:pw@db/sa', GATEWAY_DATABASE_URL: 'postgres://gw:gwpw@db/sa', CHAT_DATABASE_URL: 'postgres://c:cpw@db/sa' };
    const gateway = appDatabaseEnv('gateway', env);
    expect(gateway['DATABASE_URL']).toBe('postgres://gw:gwpw@db/sa');
    expect(Object.entries(gateway).filter(([, v]) => v !== undefined)).toEqual([['DATABASE_URL', 'postgres://gw:gwpw@db/sa']]);
    expect({ ...env, ...appDatabaseEnv('leads', env) }).toEqual({
      DATABASE_URL: 'postgres://sa_leads@db/sa',
      GATEWAY_DATABASE_URL: undefined,
      CHAT_DATABASE_URL: undefined,
      ...Object.fromEntries(SCHEMA_OWNER_APPS.filter((a) => !['gateway', 'chat'].includes(a)).map((a) => [databaseUrlVariable(a), undefined])),
    });
    expect(appDatabaseEnv('mcp', env)['DATABASE_URL']).toBeUndefined();
    expect('DATABASE_URL' in appDatabaseEnv('mcp', env)).toBe(true);
  });
});
