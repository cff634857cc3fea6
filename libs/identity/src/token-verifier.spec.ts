import 'reflect-metadata';
import { ManualIdentityFeed, workspaceFacts } from './identity-fixtures';
import { IdentitySource, LoadedToken, TokenUseRecord, WorkspaceFacts } from './identity-source';
import { generateTokenSecret, hashTokenSecret } from './token-secret';
import { TokenVerifier } from './token-verifier';

// The verifier's cache over any source and feed (the gateway's database and NOTIFY, or the gateway
// over NATS for the MCP server): here both are stand-ins the tests drive.

const WS = '0b9c2f4e-1d2a-4e3b-8c4d-5e6f7a8b9c0d';
const TOKEN = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const workspace = workspaceFacts({ id: WS, plan: 'scale' });

class TestSource implements IdentitySource {
  secret = generateTokenSecret();
  scopes: string[] = ['bots:read'];
  calls = { token: 0, workspace: 0 };
  uses: TokenUseRecord[][] = [];
  prefetch = true;
  duringLoad: (() => void) | null = null;
  failUses = false;
  async token(hash: string): Promise<LoadedToken | null> {
    this.calls.token++;
    this.duringLoad?.();
    if (hash !== hashTokenSecret(this.secret)) return null;
    const token = { id: TOKEN, workspaceId: WS, name: 't', scopes: this.scopes as never, botIds: null, expiresAt: null };
    return this.prefetch ? { token, workspace } : { token };
  }
  async workspace(): Promise<WorkspaceFacts | null> {
    this.calls.workspace++;
    return workspace;
  }
  async recordUses(uses: TokenUseRecord[]): Promise<number> {
    if (this.failUses) throw new Error('gateway away');
    this.uses.push(uses);
    return uses.length;
  }
}

const logged: unknown[] = [];
const logger = { warn: (o: unknown) => logged.push(o) } as never;
const opts = { cacheTtlMs: 60_000, negativeTtlMs: 60_000, maxEntries: 100, lastUsedFlushMs: 60_000 };

async function started(source = new TestSource()) {
  const feed = new ManualIdentityFeed();
  const verifier = new TokenVerifier(source, feed, opts, logger);
  await verifier.start();
  return { source, feed, verifier };
}

describe('TokenVerifier over a source and a feed', () => {
  it('takes the workspace that came with the token, and serves both from the cache', async () => {
    const { source, verifier } = await started();
    expect((await verifier.verify(source.secret)).workspace).toEqual(workspace);
    await verifier.verify(source.secret);
    expect(source.calls).toEqual({ token: 1, workspace: 0 });
    await verifier.stop();
  });

  it('asks for the workspace when the source did not bring it', async () => {
    const source = new TestSource();
    source.prefetch = false;
    const { verifier } = await started(source);
    await verifier.verify(source.secret);
    await verifier.verify(source.secret);
    expect(source.calls).toEqual({ token: 1, workspace: 1 });
    await verifier.stop();
  });

  it('does not cache a token whose load crossed a change, and drops everything on reset', async () => {
    const { source, feed, verifier } = await started();
    source.duringLoad = () => feed.send({ kind: 'token', id: TOKEN });
    await verifier.verify(source.secret);
    source.duringLoad = null;
    await verifier.verify(source.secret);
    expect(source.calls.token).toBe(2);
    await verifier.verify(source.secret);
    expect(source.calls.token).toBe(2);
    source.scopes = ['bots:read', 'bots:write'];
    feed.send({ kind: 'reset' });
    expect((await verifier.verify(source.secret)).token.scopes).toEqual(['bots:read', 'bots:write']);
    expect(source.calls.token).toBe(3);
    await verifier.stop();
  });

  it('refuses an unknown secret (remembered) with the 401 of every edge', async () => {
    const { source, verifier } = await started();
    const other = generateTokenSecret();
    for (let i = 0; i < 2; i++) await expect(verifier.verify(other)).rejects.toMatchObject({ code: 'unauthorized', message: 'Missing, invalid, expired or revoked API token' });
    expect(source.calls.token).toBe(1);
    await verifier.stop();
  });

  it('hands the latest use of each token to the source when stopped; a failure is logged, not thrown', async () => {
    const { source, verifier } = await started();
    const at = new Date('2030-01-01T00:00:00.000Z');
    await verifier.verify(source.secret, new Date(at.getTime() - 1000));
    await verifier.verify(source.secret, at);
    await verifier.stop();
    expect(source.uses).toEqual([[{ id: TOKEN, at }]]);

    const failing = await started();
    failing.source.failUses = true;
    await failing.verifier.verify(failing.source.secret);
    await expect(failing.verifier.stop()).resolves.toBeUndefined();
    expect(logged).toEqual([expect.objectContaining({ err: 'gateway away' })]);
  });
});
