import { authV1 } from '@gw/contracts';
import { clientChain, RpcClient, rpcClient } from '@gw/service-kit';
import { GatewayUnderTest, scrapeMetrics, startGateway } from '@gw/test-stack';

/**
 * With GRPC_MAX_CONNECTION_AGE_MS at 1 s, auth-service asks every connection to go away after a
 * second and cuts it 30 s later (the grace of service-kit's gRPC server): a change stream that
 * stayed on its connection would be cut about every 31 s, so each edge moves to a new stream at
 * least twice in this run, once past a cut.
 */
const MAX_CONNECTION_AGE_MS = 1000;
const RUN_MS = 37_000;
const KEYS = 500;
const SWEEP_EVERY_MS = 10_000;
const REVOKE_EVERY_MS = 250;
const DEADLINE_MS = 5000;

/**
 * The edge keeps its key cache across the cuts of auth-service's change stream by a connection's
 * maximum age: two edges, each on its own auth-service replica, a warm cache of
 * KEYS keys, and for RUN_MS a key revoked every REVOKE_EVERY_MS (through the first replica, so the
 * second edge hears it through Postgres), some of them while an edge is moving to a new stream.
 */
describe('key cache across connection-age cuts of the change stream (two edges, two auth-services)', () => {
  let gw: GatewayUnderTest;
  let auth: RpcClient<authV1.AuthClient, authV1.AuthService>;

  beforeAll(async () => {
    gw = await startGateway({ GRPC_MAX_CONNECTION_AGE_MS: String(MAX_CONNECTION_AGE_MS) }, { replicas: { edge: 2, auth: 2 } });
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    auth = rpcClient(authV1.AuthClient, gw.stack.env.AUTH_ADDR, gw.stack.grpcSecurity('ctl'), 'auth-service', settings);
  }, 90_000);

  afterAll(async () => {
    auth?.close();
    await gw?.stop();
  }, 60_000);

  const edges = [0, 1];
  /** GET /v1/usage through edge `edge` (authenticated, not counted): its status. */
  const usage = async (key: string, edge: number) =>
    (await fetch(`${gw.stack.baseUrls[edge]}/usage`, { headers: { authorization: `Bearer ${key}` } })).status;
  const authenticateCalls = async () => {
    const scrapes = await Promise.all(gw.stack.replicaMetricsUrls['auth-service'].map(scrapeMetrics));
    return scrapes.reduce((sum, s) => sum + s.value('grpc_server_handling_seconds_count', { method: 'Authenticate' }), 0);
  };
  const edgeMetric = async (name: string, labels?: Record<string, string>) =>
    Promise.all(gw.stack.replicaMetricsUrls.edge.map(async (url) => (await scrapeMetrics(url)).value(name, labels)));

  it('never empties the cache, asks nothing again about a cached key, and refuses each revoked key as soon as RevokeKey returns', async () => {
    const keys: { key: string; keyId: string }[] = [];
    for (let a = 0; a < 4; a++) {
      const { account } = await auth.createAccount({ name: `handover ${a}` });
      for (let k = 0; k < KEYS / 4; k++) {
        const created = await auth.createKey({ accountId: account?.accountId ?? '', name: '' });
        keys.push({ key: created.key, keyId: created.info?.id ?? '' });
      }
    }
    for (const { key } of keys) expect(await Promise.all(edges.map((e) => usage(key, e)))).toEqual([200, 200]);
    const callsBefore = await authenticateCalls();
    const flushesBefore = await edgeMetric('edge_key_cache_flushes_total');
    const handoversBefore = await edgeMetric('edge_key_cache_handovers_total', { outcome: 'done' });

    const live = [...keys];
    const served: string[] = [];
    const refusedLive: string[] = [];
    let revocations = 0;
    let duringHandover = 0;
    let nextSweep = Date.now() + SWEEP_EVERY_MS;
    // The run goes on past RUN_MS (up to twice as long) until a check has fallen inside a handover:
    // a handover lasts a moment, and a loaded machine makes fewer checks.
    const started = Date.now();
    const running = () => Date.now() - started < RUN_MS || (duringHandover === 0 && Date.now() - started < 2 * RUN_MS);
    while (running() && live.length > 50) {
      const revoked = live.shift() as { key: string; keyId: string };
      const streamsBefore = await edgeMetric('edge_key_cache_streams');
      await auth.revokeKey({ keyId: revoked.keyId, accountId: '' });
      const statuses = await Promise.all(edges.map((e) => usage(revoked.key, e)));
      const streamsAfter = await edgeMetric('edge_key_cache_streams');
      revocations++;
      if (statuses.some((s) => s !== 401)) served.push(`${revoked.keyId}: ${statuses.join(',')}`);
      // An edge held two streams before the revocation and after its check: it was moving to a new one throughout.
      duringHandover += edges.filter((e) => streamsBefore[e] === 2 && streamsAfter[e] === 2).length;
      if (Date.now() >= nextSweep) {
        nextSweep = Date.now() + SWEEP_EVERY_MS;
        for (const { key, keyId } of live) for (const e of edges) if ((await usage(key, e)) !== 200) refusedLive.push(keyId);
      }
      // The pace of the revocations is the scenario.
      await new Promise((r) => setTimeout(r, REVOKE_EVERY_MS));
    }

    expect(served).toEqual([]);
    expect(refusedLive).toEqual([]);
    // Each check of a revoked key asks auth-service once (a key not found is not kept); a cached key is never asked about again.
    expect((await authenticateCalls()) - callsBefore).toBe(revocations * edges.length);
    expect(await edgeMetric('edge_key_cache_flushes_total')).toEqual(flushesBefore);
    const handovers = (await edgeMetric('edge_key_cache_handovers_total', { outcome: 'done' })).map((n, e) => n - handoversBefore[e]);
    expect(Math.min(...handovers)).toBeGreaterThanOrEqual(2);
    expect(duringHandover).toBeGreaterThan(0);
    expect(await edgeMetric('edge_key_cache_trusted')).toEqual([1, 1]);
    console.log(
      `key cache handover e2e: ${revocations} revocations (${duringHandover} checks during a handover), handovers per edge ${handovers.join('/')}`,
    );
  }, 240_000);
});
