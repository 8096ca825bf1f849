import { Database } from '@gw/service-kit';
import { BillingTestApps, BillingTestClient, startBillingTestApps } from '../billing-test-db';

const DEADLINE_MS = 10_000;

/** The older release's charges (Settle) are linked into the audit chain as ApplyBills' are. */
describe("billing books of the older release's Settle (gRPC, Postgres)", () => {
  let t: BillingTestApps;
  let db: Database;
  let client: BillingTestClient;

  const links = async (via: string) =>
    (await db.query<{ rows: string }>("SELECT details->>'rows' AS rows FROM billing.audit_log WHERE details->>'via' = $1", [via])).rows;

  beforeAll(async () => {
    t = await startBillingTestApps(1, {}, DEADLINE_MS);
    db = t.db;
    client = t.clients[0];
  });
  afterAll(() => t?.close());

  it("links the older release's Settle too (one link per settle batch), and the books stay clean", async () => {
    await client.setPrice({ price: { model: 'vendor-v4-lite', inputMicroLydPerMillion: 500_000, outputMicroLydPerMillion: 2_000_000 } });
    await client.addBalance({ accountId: 'acct_legacy', amountMicroLyd: 1_000_000 });
    const requests = ['req_books_legacy_1', 'req_books_legacy_2'];
    for (const requestId of requests)
      expect(
        await client.authorize({ requestId, accountId: 'acct_legacy', model: 'vendor-v4-lite', promptTokens: 2000, maxTokens: 1000 }),
      ).toMatchObject({ approved: true });
    await Promise.all(
      requests.map((requestId) => client.settle({ requestId, promptTokens: 2000, completionTokens: 100, usageEstimated: false })),
    );
    expect((await links('settle')).reduce((sum, link) => sum + Number(link.rows), 0)).toBe(2);
    expect((await client.auditMoney({})).violations).toEqual([]);
    expect((await client.verifyAuditTrail({})).check).toMatchObject({ ok: true });
  });
});
