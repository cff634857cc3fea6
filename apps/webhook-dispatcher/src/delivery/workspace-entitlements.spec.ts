import 'reflect-metadata';
import { ServiceUnavailable } from '@sa/errors';
import { ManualIdentityFeed, WorkspaceFacts, workspaceFacts } from '@sa/identity';
import { WorkspaceEntitlements } from './workspace-entitlements';

/** The feed as the gateway's relay drives it: changes, resets, and whether it is connected. */
const WS = '6f1c2c1e-4d1a-4c1e-9f1a-2b3c4d5e6f70';
const facts = (plan: WorkspaceFacts['plan']): WorkspaceFacts => workspaceFacts({ id: WS, plan });
const silent = { warn: () => undefined } as never;

function setup() {
  const gateway = { plan: 'scale' as WorkspaceFacts['plan'] | null, down: false, asked: 0 };
  const source = {
    workspace: async () => {
      gateway.asked++;
      if (gateway.down) throw new ServiceUnavailable('identity', 'no instance is running');
      return gateway.plan ? facts(gateway.plan) : null;
    },
  };
  const feed = new ManualIdentityFeed();
  return { gateway, feed, entitlements: new WorkspaceEntitlements(source, feed, silent) };
}

describe('WorkspaceEntitlements', () => {
  it('asks the gateway once per workspace and minute while the feed listens', async () => {
    const { gateway, feed, entitlements } = setup();
    await entitlements.start();
    const t = Date.now();
    expect(await entitlements.webhooksEnabled(WS, t)).toBe(true);
    expect(await entitlements.webhooksEnabled(WS, t + 59_000)).toBe(true);
    expect(gateway.asked).toBe(1);
    gateway.plan = 'growth';
    expect(await entitlements.webhooksEnabled(WS, t + 60_000)).toBe(false);
    expect(gateway.asked).toBe(2);
    // Not listening: every call asks.
    await feed.stop();
    await entitlements.webhooksEnabled(WS, t + 60_001);
    expect(gateway.asked).toBe(3);
  });

  it('drops a workspace at once when its change is heard, and everything on reset; token changes change nothing', async () => {
    const { gateway, feed, entitlements } = setup();
    await entitlements.start();
    expect(await entitlements.webhooksEnabled(WS)).toBe(true);
    feed.send({ kind: 'token', id: WS });
    expect(await entitlements.webhooksEnabled(WS)).toBe(true);
    expect(gateway.asked).toBe(1);
    gateway.plan = 'growth';
    feed.send({ kind: 'workspace', id: WS });
    expect(await entitlements.webhooksEnabled(WS)).toBe(false);
    gateway.plan = 'scale';
    feed.send({ kind: 'reset' });
    expect(await entitlements.webhooksEnabled(WS)).toBe(true);
    expect(gateway.asked).toBe(3);
    // Unknown workspaces get nothing.
    gateway.plan = null;
    feed.send({ kind: 'workspace', id: WS });
    expect(await entitlements.webhooksEnabled(WS)).toBe(false);
  });

  it('does not cache an answer that crossed a change', async () => {
    const feed = new ManualIdentityFeed();
    await feed.start();
    let asked = 0;
    let crossing = true;
    const source = {
      workspace: async () => {
        asked++;
        if (crossing) feed.send({ kind: 'workspace', id: WS }); // heard while the answer travels
        return facts('scale');
      },
    };
    const entitlements = new WorkspaceEntitlements(source, feed, silent);
    expect(await entitlements.webhooksEnabled(WS)).toBe(true);
    crossing = false;
    expect(await entitlements.webhooksEnabled(WS)).toBe(true);
    expect(asked).toBe(2);
    expect(await entitlements.webhooksEnabled(WS)).toBe(true);
    expect(asked).toBe(2);
  });

  it('uses an answer younger than a minute when the gateway cannot answer after a reset, and fails without one', async () => {
    const { gateway, feed, entitlements } = setup();
    await entitlements.start();
    const t = Date.now();
    expect(await entitlements.webhooksEnabled(WS, t)).toBe(true);
    gateway.down = true;
    feed.send({ kind: 'reset' });
    expect(await entitlements.webhooksEnabled(WS, t + 30_000)).toBe(true);
    await expect(entitlements.webhooksEnabled(WS, t + 60_000)).rejects.toMatchObject({ code: 'service_unavailable' });
    // A change that was heard is never answered from the old entry.
    gateway.down = false;
    expect(await entitlements.webhooksEnabled(WS, t + 61_000)).toBe(true);
    gateway.down = true;
    feed.send({ kind: 'workspace', id: WS });
    await expect(entitlements.webhooksEnabled(WS, t + 62_000)).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
