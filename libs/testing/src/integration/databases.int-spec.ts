import { Client } from 'pg';
import { createTestDatabase } from './test-database';

// A test file drops its database right after closing its pools. pg-pool's end() resolves before
// its clients' sockets are closed, so a drop that forced connections off at once could hit one of
// them mid-close: its client got "terminating connection due to administrator command" (57P01)
// and, as an idle pool client, made the pool emit an unhandled 'error' that failed the file (seen
// in CI, postgres-vector-store.int-spec under Node 24).

async function connectedTo(url: string): Promise<{ client: Client; errors: Error[] }> {
  const client = new Client({ connectionString: url });
  const errors: Error[] = [];
  client.on('error', (err) => errors.push(err));
  await client.connect();
  await client.query('SELECT 1');
  return { client, errors };
}

describe('dropping a test database', () => {
  it('waits for connections that are closing on their own instead of killing them', async () => {
    const db = await createTestDatabase('sa_test_drop');
    const { client, errors } = await connectedTo(db.url);
    const closed = new Promise<void>((resolve) => setTimeout(() => void client.end().then(resolve, resolve), 300));
    await db.drop();
    await closed;
    expect(errors).toEqual([]);
  });

  it('still drops a database whose connection stays open, once the wait is over', async () => {
    const db = await createTestDatabase('sa_test_drop');
    const { client, errors } = await connectedTo(db.url);
    const started = Date.now();
    await db.drop();
    expect(Date.now() - started).toBeLessThan(5000);
    await new Promise((r) => setTimeout(r, 100));
    expect(errors.map((e) => (e as Error & { code?: string }).code)).toEqual(['57P01']);
    await client.end().catch(() => undefined);
  });
});
