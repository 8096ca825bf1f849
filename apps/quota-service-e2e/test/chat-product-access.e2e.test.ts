import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentials, status } from '@grpc/grpc-js';
import { authV1, billingV1, quotaV1 } from '@gw/contracts';
import { clientChain, rpcClient } from '@gw/service-kit';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { rawUnaryCall } from '@gw/testing';

const DEADLINE_MS = 5000;
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

/**
 * The chat product's identity against the running services (every hop mutual TLS): it may count,
 * take and give back places and read usage, and nothing else; a caller without a certificate
 * is refused; each refusal is logged with the caller and method, and counted.
 */
describe('who may call what, through the real services', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let accountId: string;
  let chatQuota: quotaV1.QuotaClient;

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    accountId = ((await stack.ctl('account', 'create', '--balance', '1')).json as { accountId: string }).accountId;
    // As docs/chat-product.md shows the chat product: grpc-js' own TLS credentials from its certificate files.
    const file = (name: string) => readFileSync(join(stack.tlsRoot, 'chat-product', name));
    const port = stack.env.QUOTA_ADDR.split(':').pop();
    chatQuota = new quotaV1.QuotaClient(`localhost:${port}`, credentials.createSsl(file('ca.crt'), file('tls.key'), file('tls.crt')));
  }, 90_000);

  afterAll(async () => {
    chatQuota?.close();
    await gw?.stop();
  }, 60_000);

  it('lets the chat product count, take and give back a place, and read usage', async () => {
    const quota = chatQuota;
    expect(await rawUnaryCall(quota.countRequest.bind(quota), { accountId }, DEADLINE_MS)).toMatchObject({ allowed: true, limit: 30 });
    expect(
      await rawUnaryCall(quota.acquirePlace.bind(quota), { accountId, requestId: 'chat-turn-1', lease: undefined }, DEADLINE_MS),
    ).toMatchObject({
      granted: true,
    });
    await rawUnaryCall(
      quota.releasePlace.bind(quota),
      { accountId, requestId: 'chat-turn-1', promptTokens: 40, completionTokens: 2 },
      DEADLINE_MS,
    );
    expect(await rawUnaryCall(quota.getUsage.bind(quota), { accountId }, DEADLINE_MS)).toMatchObject({ todayTokens: 42, totalTokens: 42 });
  });

  it('refuses the chat product every other method, of every service, with PERMISSION_DENIED', async () => {
    const security = stack.grpcSecurity('chat-product');
    const auth = rpcClient(authV1.AuthClient, stack.env.AUTH_ADDR, security, 'auth-service', SETTINGS);
    const billing = rpcClient(billingV1.BillingClient, stack.env.BILLING_ADDR, security, 'billing-service', SETTINGS);
    const quota = chatQuota;
    const denied = { code: status.PERMISSION_DENIED };
    try {
      await expect(billing.addBalance({ accountId, amountMicroLyd: 1_000_000 })).rejects.toMatchObject(denied);
      await expect(auth.createKey({ accountId, name: 'stolen' })).rejects.toMatchObject(denied);
      await expect(
        rawUnaryCall(quota.setFreeTierSettings.bind(quota), quotaV1.SetFreeTierSettingsRequest.fromPartial({ paused: true }), DEADLINE_MS),
      ).rejects.toMatchObject(denied);
      await expect(
        rawUnaryCall(quota.reserveFree.bind(quota), quotaV1.ReserveFreeRequest.fromPartial({ accountId, requestId: 'r1' }), DEADLINE_MS),
      ).rejects.toMatchObject(denied);
      await expect(
        rawUnaryCall(
          quota.finishRequest.bind(quota),
          quotaV1.FinishRequestRequest.fromPartial({ accountId, requestId: 'r1' }),
          DEADLINE_MS,
        ),
      ).rejects.toMatchObject(denied);
      await expect(
        rawUnaryCall(quota.finishRequests.bind(quota), quotaV1.FinishRequestsRequest.fromPartial({}), DEADLINE_MS),
      ).rejects.toMatchObject(denied);
      await expect(
        rawUnaryCall(quota.renewLeases.bind(quota), quotaV1.RenewLeasesRequest.fromPartial({}), DEADLINE_MS),
      ).rejects.toMatchObject(denied);
    } finally {
      auth.close();
      billing.close();
    }
    expect(await stack.ctl('account', 'show', '--account', accountId)).toMatchObject({ exitCode: 0, json: { balance: 1 } });
    const refused = stack.logs.filter((line) => line.includes('"msg":"call refused"') && line.includes('"caller":"chat-product"'));
    expect(
      refused.some((line) => line.includes('"method":"/billing.v1.Billing/AddBalance"') && line.includes('"service":"billing-service"')),
    ).toBe(true);
    expect(refused.some((line) => line.includes('"method":"/auth.v1.Auth/CreateKey"') && line.includes('"service":"auth-service"'))).toBe(
      true,
    );
    const metrics = await (await fetch(stack.metricsUrls['quota-service'])).text();
    expect(metrics).toContain(
      'grpc_server_refused_calls_total{method="/quota.v1.Quota/SetFreeTierSettings",caller="chat-product",code="PERMISSION_DENIED"} 1',
    );
  });

  it('refuses the edge the operator methods, and a caller without a certificate everything but health', async () => {
    const edgeBilling = rpcClient(billingV1.BillingClient, stack.env.BILLING_ADDR, stack.grpcSecurity('edge'), 'billing-service', SETTINGS);
    try {
      await expect(edgeBilling.addBalance({ accountId, amountMicroLyd: 1 })).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
    } finally {
      edgeBilling.close();
    }
    const port = stack.env.QUOTA_ADDR.split(':').pop();
    const anonymous = new quotaV1.QuotaClient(`localhost:${port}`, credentials.createSsl(readFileSync(join(stack.tlsRoot, 'ca.crt'))));
    try {
      await expect(rawUnaryCall(anonymous.countRequest.bind(anonymous), { accountId }, DEADLINE_MS)).rejects.toMatchObject({
        code: status.UNAUTHENTICATED,
      });
    } finally {
      anonymous.close();
    }
  });
});
