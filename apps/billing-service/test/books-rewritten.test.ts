import { auditV1, billingV1 } from '@gw/contracts';
import { Database, entryHash } from '@gw/service-kit';
import { BillingTestApps, BillingTestClient, startBillingTestApps } from './billing-test-db';

const DEADLINE_MS = 10_000;

interface LogRow {
  seq: string;
  at: Date;
  account_id: string | null;
  action: string;
  details: Record<string, string | number | boolean | null>;
  actor: string;
  reason: string;
  prev_hash: string;
  hash: string;
  mac: string | null;
}

/**
 * A database administrator rewriting billing's books with SQL, as the four rewrites that passed
 * both `ctl audit` and `ctl audit-log verify`: money added with a matching entry and no link, a
 * charge deleted and its amount given back, the chain's last links deleted with the head moved
 * back, and a link rewritten with every later one re-hashed. Each is found now: by the money audit
 * (AuditMoney), by the walk (VerifyAuditTrail, every mac under AUDIT_KEY), or by the walk held to a
 * checkpoint kept outside the database. After each, the books are put back and found clean.
 */
describe('billing books rewritten with SQL (gRPC, Postgres)', () => {
  let t: BillingTestApps;
  let db: Database;
  let client: BillingTestClient;
  let n = 0;

  const audit = async () => (await client.auditMoney({})).violations;
  const verify = async (checkpoint?: auditV1.Checkpoint) => (await client.verifyAuditTrail({ checkpoint })).check as auditV1.ChainCheck;
  const log = async () => (await db.query<LogRow>('SELECT * FROM billing.audit_log ORDER BY seq')).rows;
  const bill = (accountId: string, chargeMicroLyd: number): billingV1.Bill =>
    ({
      requestId: `req_books_${++n}`,
      accountId,
      model: 'vendor-v4-flash',
      paid: true,
      promptTokens: chargeMicroLyd,
      completionTokens: 0,
      usageEstimated: false,
      heldMicroLyd: chargeMicroLyd,
      inputMicroLydPerMillion: 1_000_000,
      outputMicroLydPerMillion: 4_000_000,
      chargeMicroLyd,
    }) as billingV1.Bill;

  beforeAll(async () => {
    t = await startBillingTestApps(1, {}, DEADLINE_MS);
    db = t.db;
    client = t.clients[0];
    await client.addBalance({
      accountId: 'acct_books',
      amountMicroLyd: 10_000_000,
      note: { reason: 'invoice 1', idempotencyKey: 'inv-1' },
    });
    await client.extendCreditLine({ accountId: 'acct_books', returnedTotalMicroLyd: 0, needMicroLyd: 0 });
    const outcomes = (
      await client.applyBills({ bills: [bill('acct_books', 1200), bill('acct_books', 3400), bill('acct_books', 5600)], returns: [] })
    ).outcomes;
    expect(outcomes.map((o) => o.applied)).toEqual([true, true, true]);
  });
  afterAll(() => t?.close());

  it('links the top-up and the batch of charges (one link for the batch), and finds the books clean', async () => {
    const links = (await log()).map((e) => [e.action, e.details.rows]);
    expect(links).toEqual([
      ['balance-changed', 1],
      ['charges-applied', 3],
    ]);
    expect((await log())[0].details).toMatchObject({ idempotencyKey: 'inv-1', amountMicro: 10_000_000 });
    expect(await audit()).toEqual([]);
    expect(await verify()).toMatchObject({ ok: true, entries: 2, unkeyedEntries: 0 });
  });

  it('finds 5 LYD added with a matching balance entry and no link (entry-without-link)', async () => {
    await db.query("UPDATE billing.balances SET balance_micro = balance_micro + 5000000 WHERE account_id = 'acct_books'");
    await db.query(
      `INSERT INTO billing.balance_entries (account_id, amount_micro, kind, reason, made_by, balance_after)
       SELECT 'acct_books', 5000000, 'top-up', 'invoice 2', 'ctl', balance_micro FROM billing.balances WHERE account_id = 'acct_books'`,
    );
    expect(await audit()).toEqual([
      expect.objectContaining({ kind: 'entry-without-link', accountId: 'acct_books', detail: expect.stringContaining('has no link') }),
    ]);
    await db.query("DELETE FROM billing.balance_entries WHERE reason = 'invoice 2'");
    await db.query("UPDATE billing.balances SET balance_micro = balance_micro - 5000000 WHERE account_id = 'acct_books'");
    expect(await audit()).toEqual([]);
  });

  it('finds a charge deleted with its amount given back (link-without-entry), and its link rows deleted too (link-not-rows)', async () => {
    const charge = (
      await db.query<{ request_id: string; amount_micro: string }>(
        "SELECT request_id, amount_micro FROM billing.ledger WHERE account_id = 'acct_books' ORDER BY request_id LIMIT 1",
      )
    ).rows[0];
    const saved = (await db.query('SELECT * FROM billing.ledger WHERE request_id = $1', [charge.request_id])).rows[0];
    await db.query('DELETE FROM billing.ledger WHERE request_id = $1', [charge.request_id]);
    await db.query("UPDATE billing.balances SET balance_micro = balance_micro + $1 WHERE account_id = 'acct_books'", [charge.amount_micro]);
    expect(await audit()).toEqual([expect.objectContaining({ kind: 'link-without-entry', accountId: 'acct_books' })]);
    const rows = (await db.query('SELECT * FROM billing.link_rows WHERE request_id = $1', [charge.request_id])).rows;
    await db.query('DELETE FROM billing.link_rows WHERE request_id = $1', [charge.request_id]);
    expect(await audit()).toEqual([expect.objectContaining({ kind: 'link-not-rows', detail: expect.stringContaining('charges-applied') })]);

    for (const r of rows)
      await db.query(
        'INSERT INTO billing.link_rows (link_seq, n, kind, account_id, request_id, entry_id, amount_micro) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [r.link_seq, r.n, r.kind, r.account_id, r.request_id, r.entry_id, r.amount_micro],
      );
    const columns = Object.keys(saved);
    await db.query(
      `INSERT INTO billing.ledger (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      columns.map((c) => saved[c]),
    );
    await db.query("UPDATE billing.balances SET balance_micro = balance_micro - $1 WHERE account_id = 'acct_books'", [charge.amount_micro]);
    expect(await audit()).toEqual([]);
  });

  it("finds the chain's last links deleted with the head moved back, against a checkpoint kept outside the database", async () => {
    for (const price of [1_100_000, 1_200_000])
      await client.setPrice({
        price: { model: 'vendor-v4-pro', inputMicroLydPerMillion: price, outputMicroLydPerMillion: 2 * price },
        reason: 'new tariff',
      });
    const kept = await verify();
    expect(kept).toMatchObject({ ok: true, head: { service: 'billing-service', seq: 4 } });
    const checkpoint = kept.head as auditV1.Checkpoint;
    expect(checkpoint.mac).toMatch(/^[0-9a-f]{64}$/);
    const saved = await log();
    await db.query('DELETE FROM billing.audit_log WHERE seq > 2');
    await db.query('UPDATE billing.audit_head SET seq = 2, hash = $1', [saved[1].hash]);
    // The chain as left is whole: only the checkpoint shows what it was.
    expect(await verify()).toMatchObject({ ok: true, entries: 2 });
    expect(await audit()).toEqual([]);
    expect(await verify(checkpoint)).toMatchObject({
      ok: false,
      firstBad: { seq: 4, problem: 'checkpoint-cut', detail: expect.stringContaining('short of the checkpoint') },
    });

    for (const e of saved.slice(2))
      await db.query(
        `INSERT INTO billing.audit_log (seq, at, account_id, action, details, actor, reason, prev_hash, hash, mac)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [e.seq, e.at, e.account_id, e.action, e.details, e.actor, e.reason, e.prev_hash, e.hash, e.mac],
      );
    await db.query('UPDATE billing.audit_head SET seq = 4, hash = $1', [saved[3].hash]);
    expect(await verify(checkpoint)).toMatchObject({ ok: true, entries: 4 });
  });

  it('finds a link rewritten and every later one re-hashed without the key (forged), its mac kept, dropped or all macs dropped', async () => {
    const saved = await log();
    // The recipe of the repository: change the top-up's link, then recompute each hash from it and move the head.
    await db.query("UPDATE billing.audit_log SET details = jsonb_set(details, '{amountMicro}', '15000000') WHERE seq = 1");
    let prevHash = saved[0].prev_hash;
    for (const e of await log()) {
      const hash = entryHash(prevHash, {
        seq: Number(e.seq),
        at: e.at,
        accountId: e.account_id,
        action: e.action,
        details: e.details,
        actor: e.actor,
        reason: e.reason,
      });
      await db.query('UPDATE billing.audit_log SET prev_hash = $2, hash = $3 WHERE seq = $1', [e.seq, prevHash, hash]);
      prevHash = hash;
    }
    await db.query('UPDATE billing.audit_head SET hash = $1', [prevHash]);
    expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 1, problem: 'forged' } });
    // Its mac taken away, it does not pass as a link older than keying either.
    await db.query('UPDATE billing.audit_log SET mac = NULL WHERE seq = 1');
    expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 1, problem: 'unkeyed' } });
    // Every mac taken away: a chain keyed from the start (AUDIT_UNKEYED_ENTRIES 0) has no entry
    // that may lack one, so it does not pass as one written before links were keyed, checkpoint or not.
    await db.query('UPDATE billing.audit_log SET mac = NULL');
    expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 1, problem: 'unkeyed' } });
    const checkpoint = { service: 'billing-service', seq: 4, hash: saved[3].hash, mac: saved[3].mac ?? '', at: saved[3].at.toISOString() };
    expect(await verify(checkpoint)).toMatchObject({ ok: false, firstBad: { seq: 1, problem: 'unkeyed' } });

    for (const e of saved)
      await db.query('UPDATE billing.audit_log SET details = $2, prev_hash = $3, hash = $4, mac = $5 WHERE seq = $1', [
        e.seq,
        e.details,
        e.prev_hash,
        e.hash,
        e.mac,
      ]);
    await db.query('UPDATE billing.audit_head SET hash = $1', [saved[saved.length - 1].hash]);
    expect(await verify()).toMatchObject({ ok: true, entries: 4 });
    expect(await audit()).toEqual([]);
  });
});
