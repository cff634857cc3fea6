import { MemoryAttemptStore, MemoryFailureCounter, ResetMailLimit, SignInThrottle, ThrottleLimits } from './sign-in-throttle';

describe('SignInThrottle (in-process)', () => {
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  const LIMITS: ThrottleLimits = { maxPerAccount: 3, maxPerAddress: 5, delayMs: 1000, maxDelayMs: 4000, forgetMs: 60000, knownMs: 86400000, prefix: 't:' };
  const make = (limits: Partial<ThrottleLimits> = {}) => new SignInThrottle(new MemoryAttemptStore(), { ...LIMITS, ...limits });
  const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string; retryAfterSeconds?: number }) => `${e.code}:${e.retryAfterSeconds}`);
  /** One wrong password. */
  const fail = async (t: SignInThrottle, email: string, address: string) => t.failed(await t.reserve(email, address));

  it('reserves each attempt before the password is checked: of ten concurrent attempts, only the free three go through', async () => {
    const t = make();
    const results = await Promise.all(Array.from({ length: 10 }, () => outcome(t.reserve('ada@example.com', '192.0.2.1'))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(3);
    expect(results.filter((r) => r === 'too_many_attempts:1')).toHaveLength(7);
  });

  it('past the free failures each attempt waits a delay that doubles, up to the maximum; a refused attempt counts nothing', async () => {
    const t = make();
    for (let i = 0; i < 3; i++) await fail(t, 'Ada@example.com', '192.0.2.1');
    expect(await outcome(t.reserve('ADA@example.com', '192.0.2.1'))).toBe('too_many_attempts:1');
    const waits: string[] = [];
    for (let i = 0; i < 4; i++) {
      now += 60000 - 1; // within the window, past any delay
      await fail(t, 'ada@example.com', '192.0.2.1');
      waits.push(await outcome(t.reserve('ada@example.com', '192.0.2.1')));
      waits.push(await outcome(t.reserve('ada@example.com', '192.0.2.1')));
    }
    expect(waits).toEqual(['too_many_attempts:2', 'too_many_attempts:2', 'too_many_attempts:4', 'too_many_attempts:4', 'too_many_attempts:4', 'too_many_attempts:4', 'too_many_attempts:4', 'too_many_attempts:4']);
    now += 4000;
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.1'))).toBe('ok');
  });

  it('a right password gives its attempt back: it does not spend the budget', async () => {
    const t = make();
    for (let i = 0; i < 10; i++) await t.succeeded(await t.reserve('ada@example.com', `10.0.0.${i}`));
    for (let i = 0; i < 3; i++) await fail(t, 'ada@example.com', '10.0.1.1');
    expect(await outcome(t.reserve('ada@example.com', '10.0.1.2'))).toBe('too_many_attempts:1');
  });

  it("failures from other addresses slow the account down there, but not at an address it signed in from before", async () => {
    const t = make();
    await t.succeeded(await t.reserve('ada@example.com', '192.0.2.10'));
    for (let i = 0; i < 3; i++) await fail(t, 'ada@example.com', `198.51.100.${i}`);
    expect(await outcome(t.reserve('ada@example.com', '198.51.100.99'))).toBe('too_many_attempts:1');
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.10'))).toBe('ok');
    // Another account is not concerned.
    expect(await outcome(t.reserve('bob@example.com', '198.51.100.99'))).toBe('ok');
  });

  it('a known address has a budget of its own (the pair): its own failures still slow it down', async () => {
    const t = make();
    await t.succeeded(await t.reserve('ada@example.com', '192.0.2.10'));
    for (let i = 0; i < 3; i++) await fail(t, 'ada@example.com', '192.0.2.10');
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.10'))).toBe('too_many_attempts:1');
  });

  it('an address that tried many accounts slows the other accounts behind it down, only for the delay', async () => {
    const t = make();
    for (let i = 0; i < 5; i++) await fail(t, `user${i}@example.com`, '192.0.2.1');
    expect(await outcome(t.reserve('new@example.com', '192.0.2.1'))).toBe('too_many_attempts:1');
    expect(await outcome(t.reserve('new@example.com', '192.0.2.2'))).toBe('ok');
    now += 1000;
    const attempt = await t.reserve('new@example.com', '192.0.2.1');
    await t.succeeded(attempt);
    // Known there now: the address's next failures do not concern it.
    for (let i = 5; i < 8; i++) {
      now += 5000;
      await fail(t, `user${i}@example.com`, '192.0.2.1');
    }
    expect(await outcome(t.reserve('other@example.com', '192.0.2.1'))).toBe('too_many_attempts:4');
    expect(await outcome(t.reserve('new@example.com', '192.0.2.1'))).toBe('ok');
  });

  it('an attempt released (an error before the password was checked) counts nothing', async () => {
    const t = make();
    for (let i = 0; i < 5; i++) await t.release(await t.reserve('ada@example.com', '192.0.2.1'));
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.1'))).toBe('ok');
  });

  it('the delay runs from the failure, not from the reservation (the password check takes a while)', async () => {
    const t = make();
    for (let i = 0; i < 2; i++) await fail(t, 'ada@example.com', '192.0.2.1');
    const slow = await t.reserve('ada@example.com', '192.0.2.1');
    now += 900;
    await t.failed(slow);
    now += 900;
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.1'))).toBe('too_many_attempts:1');
    now += 100;
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.1'))).toBe('ok');
  });

  it('forgets failures a window after their delay has passed; knows an address only for its time', async () => {
    const t = make({ knownMs: 10000 });
    await t.succeeded(await t.reserve('ada@example.com', '192.0.2.10'));
    for (let i = 0; i < 3; i++) await fail(t, 'ada@example.com', '192.0.2.3');
    now += 1000 + 60000 - 1;
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.4'))).toBe('ok');
    // Four failures still remembered: the known address is past its time, so it waits too.
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.10'))).toBe('too_many_attempts:2');
    now += 2000 + 60000;
    expect(await outcome(t.reserve('ada@example.com', '192.0.2.4'))).toBe('ok');
  });
});

describe('ResetMailLimit', () => {
  const make = () => new ResetMailLimit(new MemoryFailureCounter(60000), { maxPerAccount: 2, maxPerAddress: 4, prefix: 't:' });

  it('lets a few e-mails go to one account, then sends none, without a refusal (the answer must not tell whether the account exists)', async () => {
    const limit = make();
    const sent: boolean[] = [];
    for (let i = 0; i < 3; i++) sent.push((await limit.request('Ada@example.com', `10.0.0.${i}`)).mayEmail);
    expect(sent).toEqual([true, true, false]);
    expect((await limit.request('bob@example.com', '10.0.0.9')).mayEmail).toBe(true);
  });

  it('refuses a client address over its limit with 429 too_many_attempts, whatever the account', async () => {
    const limit = make();
    for (let i = 0; i < 4; i++) await limit.request(`p${i}@example.com`, '10.1.1.1');
    await expect(limit.request('someone@example.com', '10.1.1.1')).rejects.toMatchObject({ code: 'too_many_attempts', retryAfterSeconds: 60 });
    expect((await limit.request('someone@example.com', '10.1.1.2')).mayEmail).toBe(true);
  });
});
