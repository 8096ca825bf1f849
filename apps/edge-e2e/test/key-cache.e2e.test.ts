import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { eventually, GatewayUnderTest, scrapeMetrics, startGateway } from '@gw/test-stack';

/**
 * The edge's key cache, kept coherent by auth-service's change stream: two edges, each on its
 * own auth-service replica, the operator on the first. Revocations and suspensions (docs/api.md#authentication) hold through every edge
 * from the next request on, also for an edge whose stream was cut and came back.
 */
describe('key cache at the edge (two edges, two auth-services)', () => {
  let gw: GatewayUnderTest;
  // A replica's feed connection on another database of the same server (another deployment, or
  // another test file): it never hears this stack's changes, so no publisher may wait for it.
  let otherDb: TestDatabase;
  let otherFeed: Client;

  beforeAll(async () => {
    gw = await startGateway({}, { replicas: { edge: 2, auth: 2 } });
    otherDb = await createTestDatabase();
    otherFeed = new Client({ connectionString: otherDb.url, application_name: 'gw-auth-feed:elsewhere' });
    await otherFeed.connect();
  }, 90_000);

  afterAll(async () => {
    await otherFeed?.end();
    await Promise.all([gw?.stop(), otherDb?.drop()]);
  }, 60_000);

  const unconfirmed = () => gw.stack.logs.filter((line) => line.includes('not confirmed by every replica'));

  /** GET /v1/usage through edge `edge` (authenticated, not counted): its status. */
  const usage = async (key: string, edge: number) =>
    (await fetch(`${gw.stack.baseUrls[edge]}/usage`, { headers: { authorization: `Bearer ${key}` } })).status;
  const modelsOf = async (key: string, edge: number) =>
    (
      (await (await fetch(`${gw.stack.baseUrls[edge]}/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        data: { id: string }[];
      }
    ).data.map((m) => m.id);
  const authenticateCalls = async () => {
    const scrapes = await Promise.all(gw.stack.replicaMetricsUrls['auth-service'].map(scrapeMetrics));
    return scrapes.reduce((sum, s) => sum + s.value('grpc_server_handling_seconds_count', { method: 'Authenticate' }), 0);
  };
  /** The status of GET /v1/usage with `key` through each edge. */
  const both = async (key: string) => [await usage(key, 0), await usage(key, 1)];

  it('asks auth-service once per edge for a key used many times', async () => {
    const { key } = await gw.account();
    expect(await both(key)).toEqual([200, 200]);
    const before = await authenticateCalls();
    for (let i = 0; i < 10; i++) expect(await both(key)).toEqual([200, 200]);
    expect(await authenticateCalls()).toBe(before);
  });

  it('keeps "last used" moving for a key served from the cache (reported by the edge)', async () => {
    const { accountId, key } = await gw.account();
    const lastUsed = async () => (await gw.ctlOk<{ lastUsed: string }[]>('key', 'list', '--account', accountId))[0].lastUsed;
    expect(await both(key)).toEqual([200, 200]);
    const waitForChange = (from: string) => eventually(lastUsed, (now) => now !== from, { intervalMs: 200 });
    const first = await waitForChange('Never');
    const calls = await authenticateCalls();
    // The clock is the scenario: the next use is a second later, so that its time differs.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await usage(key, 1)).toBe(200);
    expect(await authenticateCalls()).toBe(calls);
    expect(Date.parse(await waitForChange(first))).toBeGreaterThan(Date.parse(first));
  });

  it('refuses a revoked key at once through both edges, though both had it cached', async () => {
    const { key, keyId } = await gw.account();
    expect(await both(key)).toEqual([200, 200]);
    await gw.ctlOk('key', 'revoke', '--id', keyId);
    expect(await both(key)).toEqual([401, 401]);
    expect(unconfirmed()).toEqual([]);
  });

  it('applies a suspension, its end and a model grant at once through both edges', async () => {
    const { accountId, key } = await gw.account();
    expect(await both(key)).toEqual([200, 200]);
    await gw.ctlOk('account', 'suspend', '--account', accountId, '--reason', 'test');
    expect(await both(key)).toEqual([403, 403]);
    await gw.ctlOk('account', 'unsuspend', '--account', accountId);
    expect(await both(key)).toEqual([200, 200]);
    await gw.ctlOk('model', 'add', '--id', 'cache-private-model');
    expect(await modelsOf(key, 0)).not.toContain('cache-private-model');
    await gw.ctlOk('account', 'grant-model', '--account', accountId, '--model', 'cache-private-model');
    expect([await modelsOf(key, 0), await modelsOf(key, 1)].map((ids) => ids.includes('cache-private-model'))).toEqual([true, true]);
  });

  it("stops trusting the cache while an edge's stream is cut, and a change made meanwhile holds when it is back", async () => {
    const { key, keyId } = await gw.account();
    const other = await gw.account();
    expect([await both(key), await both(other.key)]).toEqual([
      [200, 200],
      [200, 200],
    ]);
    await gw.stack.killApp('auth-service', 1);
    // Edge 1's only auth-service is gone: its cache is off, so its keys cannot be checked.
    expect(await usage(other.key, 1)).toBe(500);
    await gw.ctlOk('key', 'revoke', '--id', keyId);
    expect(await usage(key, 0)).toBe(401);
    await gw.stack.startApp('auth-service');
    await eventually(
      () => usage(other.key, 1),
      (status) => status === 200,
      { intervalMs: 200 },
    );
    expect([await usage(key, 1), await usage(other.key, 1)]).toEqual([401, 200]);
  });
});
