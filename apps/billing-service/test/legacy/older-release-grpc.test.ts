import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../../src/billing-app';
import { loadConfig } from '../../src/config';
import { codeOf } from '../billing-test-db';

const DEADLINE_MS = 5000;
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

describe("billing.v1.Billing over gRPC: the older release's methods", () => {
  let testDb: TestDatabase;
  let app: BillingApp;
  let client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, INSECURE, 'billing-service', SETTINGS);
  });

  afterAll(async () => {
    client?.close();
    try {
      await app?.stop();
    } finally {
      await testDb?.drop();
    }
  });

  it('serves authorize, settle, release and record free', async () => {
    const price = { model: 'vendor-v4-test', inputMicroLydPerMillion: 2_000_000, outputMicroLydPerMillion: 8_000_000 };
    expect(await client.setPrice({ price })).toEqual({ price });

    expect(await client.getBalance({ accountId: 'acct_grpc' })).toEqual({ balanceMicroLyd: 0 });
    expect(await client.addBalance({ accountId: 'acct_grpc', amountMicroLyd: 50_000 })).toEqual({ balanceMicroLyd: 50_000 });

    const request = { requestId: 'req_grpc_1', accountId: 'acct_grpc', model: 'vendor-v4-test', promptTokens: 1001, maxTokens: 5000 };
    const decision = { approved: true, balanceMicroLyd: 50_000, requiredMicroLyd: 2002 + 40_000 };
    expect(await client.authorize(request)).toEqual(decision);
    expect(await client.authorize(request)).toEqual(decision);

    const refused = await client.authorize({ ...request, requestId: 'req_grpc_2' });
    expect(refused).toEqual({ approved: false, balanceMicroLyd: 50_000, requiredMicroLyd: 42_002 + 42_002 });

    const usage = { requestId: 'req_grpc_1', promptTokens: 1001, completionTokens: 250, usageEstimated: false };
    expect(await client.settle(usage)).toEqual({ chargedMicroLyd: 2002 + 2000, balanceMicroLyd: 50_000 - 4002 });
    expect(await client.settle(usage)).toEqual({ chargedMicroLyd: 4002, balanceMicroLyd: 45_998 });
    expect(await client.getBalance({ accountId: 'acct_grpc' })).toEqual({ balanceMicroLyd: 45_998 });
    expect(await client.authorize({ ...request, requestId: 'req_grpc_3', maxTokens: 1 })).toMatchObject({ approved: true });
    expect(await client.releaseHold({ requestId: 'req_grpc_3' })).toEqual({ released: true });
    expect(await client.releaseHold({ requestId: 'req_grpc_3' })).toEqual({ released: false });
    expect(await client.addBalance({ accountId: 'acct_grpc', amountMicroLyd: -45_998 })).toEqual({ balanceMicroLyd: 0 });

    const free = {
      requestId: 'req_grpc_free',
      accountId: 'acct_grpc',
      model: 'vendor-v4-flash',
      promptTokens: 10,
      completionTokens: 5,
      usageEstimated: false,
    };
    expect(await client.recordFree(free)).toEqual({ recorded: true });
    expect(await client.recordFree(free)).toEqual({ recorded: false });
    expect(await client.getBalance({ accountId: 'acct_grpc' })).toEqual({ balanceMicroLyd: 0 });
  });

  it('settles several requests in one SettleMany, each on its own, once', async () => {
    await client.addBalance({ accountId: 'acct_many', amountMicroLyd: 100_000 });
    const ids = ['req_many_1', 'req_many_2'];
    for (const requestId of ids)
      await client.authorize({ requestId, accountId: 'acct_many', model: 'vendor-v4-flash', promptTokens: 1000, maxTokens: 1000 });
    const usage = (requestId: string) => ({ requestId, promptTokens: 1000, completionTokens: 500, usageEstimated: false });
    const requests = [usage(ids[0]), usage('never-authorized'), usage(ids[1]), { ...usage('bad'), promptTokens: -1 }];
    const { outcomes } = await client.settleMany({ requests });
    expect(outcomes.map((o) => o.errorCode)).toEqual([status.OK, status.NOT_FOUND, status.OK, status.INVALID_ARGUMENT]);
    expect(outcomes[0].settled?.chargedMicroLyd).toBe(3000);
    expect(outcomes[2].settled?.chargedMicroLyd).toBe(3000);
    expect(outcomes[1]).toMatchObject({ settled: undefined, errorMessage: expect.stringContaining('never-authorized') });
    const again = await client.settleMany({ requests: [requests[0], requests[2]] });
    expect(again.outcomes.map((o) => o.settled)).toEqual([
      { chargedMicroLyd: 3000, balanceMicroLyd: 94_000 },
      { chargedMicroLyd: 3000, balanceMicroLyd: 94_000 },
    ]);
    expect(await client.getBalance({ accountId: 'acct_many' })).toEqual({ balanceMicroLyd: 94_000 });
    expect(await codeOf(client.settleMany({ requests: Array.from({ length: 257 }, () => requests[0]) }))).toBe(status.INVALID_ARGUMENT);
  });

  it('sends refusals as gRPC statuses', async () => {
    expect(await codeOf(client.authorize({ requestId: 'r', accountId: 'a', model: 'no-such-model', promptTokens: 1, maxTokens: 1 }))).toBe(
      status.FAILED_PRECONDITION,
    );
    expect(
      await codeOf(client.settle({ requestId: 'never-authorized', promptTokens: 1, completionTokens: 1, usageEstimated: false })),
    ).toBe(status.NOT_FOUND);
    const free = { requestId: 'r_free', accountId: 'a', model: '', promptTokens: 1, completionTokens: 1, usageEstimated: false };
    expect(await codeOf(client.recordFree(free))).toBe(status.INVALID_ARGUMENT);
  });
});
