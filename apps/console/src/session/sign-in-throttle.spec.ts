import { MemoryFailureCounter, ResetMailLimit, SignInThrottle } from './sign-in-throttle';

describe('SignInThrottle', () => {
  const make = (windowMs = 60000) => new SignInThrottle(new MemoryFailureCounter(windowMs), { maxPerAccount: 3, maxPerAddress: 5, prefix: 't:' });
  const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string; retryAfterSeconds?: number }) => `${e.code}:${e.retryAfterSeconds}`);

  it('refuses an account after its failures reach the limit, whatever the address, until the window ends', async () => {
    const t = make();
    for (let i = 0; i < 3; i++) {
      expect(await code(t.check('Ada@example.com', `10.0.0.${i}`))).toBe('ok');
      await t.failed('ada@example.com', `10.0.0.${i}`);
    }
    expect(await code(t.check('ADA@example.com', '10.9.9.9'))).toBe('too_many_attempts:60');
    expect(await code(t.check('bob@example.com', '10.9.9.9'))).toBe('ok');
  });

  it('refuses an address after its failures reach the limit, whatever the account', async () => {
    const t = make();
    for (let i = 0; i < 5; i++) await t.failed(`user${i}@example.com`, '192.0.2.1');
    expect(await code(t.check('new@example.com', '192.0.2.1'))).toBe('too_many_attempts:60');
    expect(await code(t.check('new@example.com', '192.0.2.2'))).toBe('ok');
  });

  it("a success clears the account's count, not the address's", async () => {
    const t = make();
    for (let i = 0; i < 2; i++) await t.failed('ada@example.com', '192.0.2.9');
    await t.succeeded('ada@example.com', '192.0.2.9');
    for (let i = 0; i < 2; i++) await t.failed('ada@example.com', '192.0.2.9');
    expect(await code(t.check('ada@example.com', '192.0.2.9'))).toBe('ok');
    await t.failed('ada@example.com', '192.0.2.9');
    expect(await code(t.check('ada@example.com', '192.0.2.9'))).toBe('too_many_attempts:60');
  });

  it('forgets failures once the window has passed', async () => {
    const t = make(50);
    for (let i = 0; i < 3; i++) await t.failed('ada@example.com', '192.0.2.3');
    expect(await code(t.check('ada@example.com', '192.0.2.3'))).toBe('too_many_attempts:1');
    await new Promise((r) => setTimeout(r, 80));
    expect(await code(t.check('ada@example.com', '192.0.2.3'))).toBe('ok');
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
