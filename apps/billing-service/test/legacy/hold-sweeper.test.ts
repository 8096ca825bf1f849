import { status } from '@grpc/grpc-js';
import { createLogger } from '@gw/service-kit';
import { eventually } from '@gw/testing';
import { HoldSweeper } from '../../src/legacy/domain/hold-sweeper';
import { codeOf } from '../billing-test-db';
import { HoldTestDb, openHoldTestDb } from './hold-test-db';

const TTL_SECONDS = 900;
const quiet = createLogger('billing-service', 'error', () => undefined);

describe('HoldSweeper on Postgres', () => {
  let t: HoldTestDb;
  let sweeper: HoldSweeper | undefined;
  let seq = 0;

  const holdFor = async (accountId: string, ageSeconds: number) => {
    const requestId = `req_${++seq}`;
    await t.holds.authorize({ requestId, accountId, model: 'vendor-v4-flash', promptTokens: 1000, maxTokens: 1000 }); // 5,000 micro-LYD
    const placed = `now() - $2::float8 * interval '1 second'`;
    await t.db.query(`UPDATE billing.holds SET created_at = ${placed}, renewed_at = ${placed} WHERE request_id = $1`, [
      requestId,
      ageSeconds,
    ]);
    return requestId;
  };

  beforeAll(async () => {
    t = await openHoldTestDb();
  });
  afterEach(() => sweeper?.stop());
  afterAll(() => t.close());

  it('releases holds neither placed nor renewed within the TTL and keeps younger ones', async () => {
    await t.ledger.addBalance('acct_a', 100_000);
    await t.ledger.addBalance('acct_b', 100_000);
    const stale = [await holdFor('acct_a', TTL_SECONDS + 5), await holdFor('acct_a', TTL_SECONDS + 60), await holdFor('acct_b', 3600)];
    const fresh = await holdFor('acct_a', TTL_SECONDS - 60);

    sweeper = new HoldSweeper(t.holdStore, TTL_SECONDS, 60_000, quiet);
    expect(await sweeper.sweepOnce()).toBe(3);
    expect(await t.store.getBalance('acct_a')).toEqual({ balanceMicro: 100_000, heldMicro: 5000 });
    expect(await t.store.getBalance('acct_b')).toEqual({ balanceMicro: 100_000, heldMicro: 0 });
    expect(await sweeper.sweepOnce()).toBe(0);

    const settle = (requestId: string) => t.holds.settle({ requestId, promptTokens: 10, completionTokens: 10, usageEstimated: false });
    expect(await codeOf(settle(stale[0]))).toBe(status.NOT_FOUND);
    expect((await settle(fresh)).chargedMicro).toBe(50);
    expect(await t.store.getBalance('acct_a')).toEqual({ balanceMicro: 100_000 - 50, heldMicro: 0 });
  });

  it('keeps an old hold that was renewed within the TTL, and sweeps it once renewals stop', async () => {
    await t.ledger.addBalance('acct_d', 100_000);
    const running = await holdFor('acct_d', 3600);
    const unknown = 'req_never_held';
    expect(await t.holds.renewHolds([running, unknown])).toBe(1);

    sweeper = new HoldSweeper(t.holdStore, TTL_SECONDS, 60_000, quiet);
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(await t.store.getBalance('acct_d')).toEqual({ balanceMicro: 100_000, heldMicro: 5000 });

    await t.db.query(`UPDATE billing.holds SET renewed_at = now() - interval '901 seconds' WHERE request_id = $1`, [running]);
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(await t.store.getBalance('acct_d')).toEqual({ balanceMicro: 100_000, heldMicro: 0 });
  });

  it('refuses more request ids in one renewal than a batch holds', async () => {
    const ids = Array.from({ length: 257 }, (_, i) => `req_many_${i}`);
    expect(await codeOf(t.holds.renewHolds(ids))).toBe(status.INVALID_ARGUMENT);
  });

  it('sweeps on its timer until stopped', async () => {
    await t.ledger.addBalance('acct_c', 100_000);
    await holdFor('acct_c', TTL_SECONDS + 1);
    sweeper = new HoldSweeper(t.holdStore, TTL_SECONDS, 20, quiet);
    sweeper.start();
    const swept = await eventually(
      () => t.store.getBalance('acct_c'),
      (balance) => balance?.heldMicro === 0,
      { timeoutMs: 5000, intervalMs: 20 },
    );
    expect(swept?.heldMicro).toBe(0);

    await sweeper.stop();
    const late = await holdFor('acct_c', TTL_SECONDS + 1);
    // Nothing to observe but time: five intervals of the stopped sweeper pass without a sweep.
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.store.getBalance('acct_c'))?.heldMicro).toBe(5000);
    const { rows } = await t.db.query('SELECT request_id FROM billing.holds WHERE account_id = $1', ['acct_c']);
    expect(rows).toEqual([{ request_id: late }]);
  });
});
