import { pgClientConfig } from './pg-listener';

describe('pgClientConfig', () => {
  it('carries the connection settings of a PostgreSQL DataSource, not its pool settings', () => {
    const cfg = pgClientConfig(
      { type: 'postgres', url: 'postgres://u@db:5432/app', extra: { max: 10, connectionTimeoutMillis: 1234 } },
      'bots-outbox-listen',
    );
    expect(cfg).toEqual({
      connectionString: 'postgres://u@db:5432/app',
      application_name: 'bots-outbox-listen',
      connectionTimeoutMillis: 1234,
      keepAlive: true,
    });
  });

  it('uses the primary of a replicated setup and discrete settings', () => {
    const cfg = pgClientConfig(
      {
        type: 'postgres',
        replication: { master: { host: 'primary', port: 6432, username: 'svc', password: 'pw', database: 'app' }, slaves: [] },
      },
      'x',
    );
    expect(cfg).toMatchObject({ host: 'primary', port: 6432, user: 'svc', password: 'pw', database: 'app' });
  });

  it('refuses other databases', () => {
    expect(() => pgClientConfig({ type: 'better-sqlite3', database: ':memory:' }, 'x')).toThrow(/PostgreSQL/);
  });
});
