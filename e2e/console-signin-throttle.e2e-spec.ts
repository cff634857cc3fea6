import { randomBytes } from 'node:crypto';
import { admin, createUser } from './support/admin';
import { SpawnedApp, spawnApp, waitFor } from './support/apps';
import { ConsoleClient, ConsoleResponse } from './support/console';
import { uniqueName } from './support/fixtures';
import { freePort } from './support/infra';
import { e2eState } from './support/state';

// The sign-in throttle of a real console process (issue #30, item 2), once with its counts in
// Redis and once in the process: concurrent guesses cannot outrun the budget, an address the
// person signed in from before keeps working, and an address's failures slow the other accounts
// behind it down (429 with Retry-After) without locking them out.

const PASSWORD = 'correct horse battery staple';
const email = (who: string) => `${who}-${randomBytes(4).toString('hex')}@example.com`;
/** A client address of its own for each use (the console trusts X-Forwarded-For here). */
let nextOctet = 1;
const address = () => `198.51.${Math.floor(Math.random() * 200)}.${nextOctet++}`;

function from(client: ConsoleClient, ip: string) {
  return (who: string, password: string) => client.request('POST', '/api/session', { email: who, password }, { headers: { 'x-forwarded-for': ip } });
}

function expectThrottled(r: ConsoleResponse): number {
  expect(r.status).toBe(429);
  expect(r.body).toEqual({ error: 'Too Many Requests', code: 'too_many_attempts', message: expect.any(String), retry_after: expect.any(Number) });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(r.body.retry_after).toBe(retryAfter);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  return retryAfter;
}

const stores: [string, (s: ReturnType<typeof e2eState>) => string | null][] = [
  ['Redis', (s) => s.redisUrl],
  ['in-process', () => ''],
];

describe.each(stores)('console sign-in throttle (%s counts)', (_name, redisOf) => {
  const s = e2eState();
  const redisUrl = redisOf(s);
  const run = redisUrl === null ? describe.skip : describe;
  let app: SpawnedApp;
  let base: string;
  let workspaceId: string;

  beforeAll(async () => {
    if (redisUrl === null) return;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = spawnApp(
      'console',
      {
        CONSOLE_PORT: String(port),
        CONSOLE_PUBLIC_URL: base,
        REDIS_URL: redisUrl,
        TRUST_PROXY: 'true',
        CONSOLE_THROTTLE_PREFIX: `${s.rateLimitPrefix}signin-throttle-${port}:`,
        CONSOLE_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '5',
        CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS: '8',
        CONSOLE_SIGNIN_DELAY_SECONDS: '1',
        CONSOLE_SIGNIN_MAX_DELAY_SECONDS: '2',
      },
      { log: true },
    );
    workspaceId = (await admin<{ id: string }>(['workspace', 'create', '--name', uniqueName('Throttle'), '--plan', 'growth'])).id;
    await waitFor(() => fetch(`${base}/api/session`).then((r) => r.status).catch(() => 0), (st) => st === 401, 60000);
  });

  afterAll(async () => {
    await app?.kill();
  });

  run('against its own console process', () => {
    it('40 concurrent guesses at one account (39 wrong, the right one last): the right password does not sign in once the budget is spent', async () => {
      const who = email('raced');
      await createUser(workspaceId, who, 'member', PASSWORD);
      const signIn = from(new ConsoleClient(base), address());
      const wrong = Array.from({ length: 39 }, (_, i) => signIn(who, `wrong password number ${i}`));
      const right = signIn(who, PASSWORD);
      const answers = await Promise.all([...wrong, right]);
      expect(answers[39]!.status).not.toBe(200);
      expectThrottled(answers[39]!);
      // At most the budget of five reached the password check; every other attempt was refused.
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((st) => st === 401).length).toBeLessThanOrEqual(5);
      expect(statuses.filter((st) => st !== 401 && st !== 429)).toEqual([]);
    });

    it("an attacker's failures from other addresses do not lock the owner out of an address she signed in from before", async () => {
      const who = email('owner');
      await createUser(workspaceId, who, 'owner', PASSWORD);
      const home = address();
      const client = new ConsoleClient(base);
      expect((await from(client, home)(who, PASSWORD)).status).toBe(200);

      // The attacker, from two addresses, until the account refuses.
      const statuses: number[] = [];
      for (let i = 0; i < 12 && !statuses.includes(429); i++) statuses.push((await from(client, address())(who, `guess number ${i}`)).status);
      expect(statuses).toContain(429);
      // A new address is slowed down (the attacker is): 429 with Retry-After even for the right password.
      expectThrottled(await from(client, address())(who, PASSWORD));
      // Her own address is not.
      const back = await from(client, home)(who, PASSWORD);
      expect(back.status).toBe(200);
      expect(back.body.person.email).toBe(who);
    });

    it('failures from one address slow another account behind it down (429 with Retry-After), and it signs in once the delay has passed', async () => {
      const colleague = email('colleague');
      await createUser(workspaceId, colleague, 'member', PASSWORD);
      const office = address();
      const signIn = from(new ConsoleClient(base), office);
      // Eight failures against eight accounts (each under its own budget) spend the address's.
      for (let i = 0; i < 8; i++) expect((await signIn(email(`sprayed${i}`), 'a wrong password')).status).toBe(401);
      const waitSeconds = expectThrottled(await signIn(colleague, PASSWORD));
      expect(waitSeconds).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, waitSeconds * 1000 + 100));
      const ok = await signIn(colleague, PASSWORD);
      expect(ok.status).toBe(200);

      // The attacker behind it is still slowed down: the next failures wait again.
      const later: number[] = [];
      for (let i = 0; i < 4 && !later.includes(429); i++) later.push((await signIn(email('sprayed-more'), 'a wrong password')).status);
      expect(later).toContain(429);
      // And her address is known now: the attacker's failures do not stop her.
      expect((await signIn(colleague, PASSWORD)).status).toBe(200);
    });
  });
});
