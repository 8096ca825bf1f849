import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, entryHash, GENESIS_HASH, openDatabase, rpcClient, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';
import { BILLING_MIGRATIONS } from '../src/store/migrations/billing-migrations';
import { TEST_AUDIT_KEY } from './billing-test-db';

/**
 * A database of the release before links: a balance with its entry and a charge, and a chain of
 * unkeyed entries. The first start with links covers what was kept before with one keyed link
 * (books-linked), so the audit finds every movement linked, and the walk accepts the old entries
 * as the chain's prefix (AUDIT_UNKEYED_ENTRIES names them); a later start links nothing again.
 */
describe('billing books kept before links, on the first start with them (Postgres, gRPC)', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    // The release before links: every migration below the first of links (034, the keyed trail).
    const firstLinkId = '034-audit-trail-keyed';
    await runMigrations(
      db,
      'billing',
      BILLING_MIGRATIONS.filter((m) => m.id < firstLinkId),
    );
    await db.query("SELECT billing.add_balance('acct_old', 2000000, 9007199254740991, 'invoice 0', 'ctl', 'inv-0')");
    await db.query(
      `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
         output_micro_per_million, amount_micro, paid, usage_estimated, request_at)
       VALUES ('req_old', 'acct_old', 'vendor-v4-flash', 700, 0, 1000000, 4000000, 700, true, false, now())`,
    );
    await db.query("UPDATE billing.balances SET balance_micro = balance_micro - 700 WHERE account_id = 'acct_old'");
    const entry = {
      seq: 1,
      at: new Date(),
      accountId: 'acct_old',
      action: 'balance-changed',
      details: { amountMicro: 2_000_000 },
      actor: 'ctl',
      reason: 'invoice 0',
    };
    const hash = entryHash(GENESIS_HASH, entry);
    await db.query(
      `INSERT INTO billing.audit_log (seq, at, account_id, action, details, actor, reason, prev_hash, hash)
       VALUES (1, $1, 'acct_old', 'balance-changed', '{"amountMicro": 2000000}', 'ctl', 'invoice 0', $2, $3)`,
      [entry.at, GENESIS_HASH, hash],
    );
    await db.query('UPDATE billing.audit_head SET seq = 1, hash = $1', [hash]);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const start = async () => {
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
      SHUTDOWN_GRACE_MS: '500',
      // The one entry this database's chain had before links were keyed.
      AUDIT_UNKEYED_ENTRIES: '1',
      AUDIT_KEY: TEST_AUDIT_KEY,
    });
    const app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    const client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', {
      timeoutMs: 10_000,
      chain: clientChain(),
    });
    return {
      client,
      stop: async () => {
        client.close();
        await app.stop();
      },
    };
  };

  it('links the earlier entry and charge once, keyed after the unkeyed prefix, and the books check', async () => {
    const first = await start();
    try {
      expect((await first.client.auditMoney({})).violations).toEqual([]);
      expect((await first.client.verifyAuditTrail({})).check).toMatchObject({ ok: true, entries: 2, unkeyedEntries: 1 });
      const links = await db.query<{ action: string; details: { rows: number } }>(
        'SELECT action, details FROM billing.audit_log WHERE seq = 2',
      );
      expect(links.rows).toEqual([{ action: 'books-linked', details: expect.objectContaining({ rows: 2 }) }]);
      await first.client.addBalance({ accountId: 'acct_old', amountMicroLyd: 1_000_000 });
    } finally {
      await first.stop();
    }
    const second = await start();
    try {
      expect((await second.client.verifyAuditTrail({})).check).toMatchObject({ ok: true, entries: 3, unkeyedEntries: 1 });
      expect((await second.client.auditMoney({})).violations).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
