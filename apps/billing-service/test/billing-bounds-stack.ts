import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';

const DEADLINE_MS = 5000;

/** billing-service over gRPC on a database of its own, and what its bounds tests ask of it. */
export interface BillingBoundsStack {
  client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  /** Everything billing keeps: holds, ledger rows, balances with their credit lines, and prices. */
  state(): Promise<unknown>;
  /** The call is refused with INVALID_ARGUMENT, and billing's state is as it was. */
  refused(work: () => Promise<unknown>): Promise<void>;
  /** A new account with `micro` on its balance. */
  funded(micro?: number): Promise<string>;
}

/** Starts billing-service for the describe block that calls it and removes it, and its database, after. */
export function billingBoundsStack(): BillingBoundsStack {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp;
  let seq = 0;
  const stack: BillingBoundsStack = {
    client: undefined as unknown as BillingBoundsStack['client'],
    state: async () =>
      (
        await db.query(`SELECT
        (SELECT json_agg(h ORDER BY request_id) FROM billing.holds h) AS holds,
        (SELECT json_agg(l ORDER BY request_id) FROM billing.ledger l) AS ledger,
        (SELECT json_agg(json_build_array(account_id, balance_micro, held_micro, line_micro, line_granted_total, line_charged_total,
          line_returned_total) ORDER BY account_id) FROM billing.balances) AS balances,
        (SELECT json_agg(json_build_array(model, input_micro_per_million, output_micro_per_million) ORDER BY model) FROM billing.prices) AS prices`)
      ).rows[0],
    refused: async (work) => {
      const before = await stack.state();
      await expect(work()).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
      expect(await stack.state()).toEqual(before);
    },
    funded: async (micro = 10_000_000_000) => {
      const accountId = `acct_bounds_${++seq}`;
      await stack.client.addBalance({ accountId, amountMicroLyd: micro });
      return accountId;
    },
  };

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
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    stack.client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', settings);
    db = await openDatabase(testDb.url, '');
  });

  afterAll(async () => {
    stack.client?.close();
    await db?.close();
    try {
      await app?.stop();
    } finally {
      await testDb?.drop();
    }
  });
  return stack;
}
