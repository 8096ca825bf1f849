import { GatewayUnderTest, RunningStack, scrapeMetrics, startGateway } from '@gw/test-stack';
import { startTestDnsServer, TestDnsServer } from '@gw/testing';

const NAME = 'quota-service.gateway.test';
const MAX_CONNECTION_AGE_MS = 2000;

/**
 * One edge and quota-service replicas behind one DNS name, as a headless Service gives them: the
 * edge spreads its calls over every address round robin, and a replica that appears in DNS later
 * gets calls once the connections reach their maximum age and the name is looked up again.
 */
describe('load spread over quota-service replicas (dns:/// name, round robin, maximum connection age)', () => {
  let gw: GatewayUnderTest;
  let dns: TestDnsServer;
  let stack: RunningStack;
  let key: string;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    dns.set(NAME, ['127.0.0.2', '127.0.0.3']);
    gw = await startGateway(
      { GRPC_NODE_USE_ALTERNATIVE_RESOLVER: 'true', GRPC_MAX_CONNECTION_AGE_MS: String(MAX_CONNECTION_AGE_MS) },
      // The third replica runs from the start but is not in DNS yet: a pod not ready.
      { quotaSpread: { bindHosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'], address: (port) => `dns://${dns.address}/${NAME}:${port}` } },
    );
    stack = gw.stack;
    const { json } = await stack.ctl('account', 'create');
    const { accountId } = json as { accountId: string };
    key = ((await stack.ctl('key', 'create', '--account', accountId)).json as { key: string }).key;
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
    await dns?.close();
  }, 60_000);

  /** GetUsage calls each replica has answered so far (GET /v1/usage makes exactly one). */
  const servedByReplica = async () =>
    Promise.all(
      stack.replicaMetricsUrls['quota-service'].map(async (url) =>
        (await scrapeMetrics(url)).value('grpc_server_handling_seconds_count', { method: 'GetUsage', code: 'OK' }),
      ),
    );

  const usageCalls = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${stack.baseUrl}/usage`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
    }
  };

  it('gives each replica in DNS a fair share of the calls, and none to a replica not in it', async () => {
    const before = await servedByReplica();
    await usageCalls(60);
    const served = (await servedByReplica()).map((n, i) => n - before[i]);
    expect(served[0] + served[1]).toBe(60);
    expect(served[0]).toBeGreaterThanOrEqual(20);
    expect(served[1]).toBeGreaterThanOrEqual(20);
    expect(served[2]).toBe(0);
  });

  it('sends calls to a replica added to DNS within the maximum connection age', async () => {
    dns.set(NAME, ['127.0.0.2', '127.0.0.3', '127.0.0.4']);
    // Time is the scenario: past the maximum connection age, the clients resolve the name again.
    await new Promise((r) => setTimeout(r, MAX_CONNECTION_AGE_MS + 1500));
    const before = await servedByReplica();
    await usageCalls(90);
    const served = (await servedByReplica()).map((n, i) => n - before[i]);
    expect(served.reduce((a, b) => a + b)).toBe(90);
    for (const n of served) expect(n).toBeGreaterThanOrEqual(15);
  });
});
