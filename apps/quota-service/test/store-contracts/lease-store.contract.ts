import { randomUUID } from 'node:crypto';
import { LeaseRecord, LeaseStore } from '../../src/store/leases/lease-store';

/** Opens the store under test with this clock (ms). */
export type LeaseStoreFactory = (now: () => number) => Promise<LeaseStore>;

const START = Date.UTC(2031, 4, 6, 10, 0, 0);
const TTL = 30_000;
const CLAIM = 60_000;

/**
 * The behaviour every LeaseStore must have, defined once and run against each implementation.
 * The clock is driven by the tests; every test uses fresh request ids, and claims only the
 * leases it made (the store is shared by the tests).
 */
export function describeLeaseStoreContract(name: string, open: LeaseStoreFactory): void {
  describe(`LeaseStore contract: ${name}`, () => {
    let nowMs = START;
    let store: LeaseStore;
    const lease = (tokens = 0): LeaseRecord => ({
      requestId: randomUUID(),
      accountId: `acct_${randomUUID()}`,
      model: 'vendor-v4-flash',
      payment: 'paid',
      promptTokens: tokens,
      completionTokens: tokens * 2,
      usageEstimated: true,
    });
    /** Claims everything lapsed now, keeping only the given leases' records. */
    const lapsedOf = async (...mine: LeaseRecord[]) => {
      const ids = new Set(mine.map((l) => l.requestId));
      return (await store.claimLapsed(1000, CLAIM)).filter((l) => ids.has(l.requestId));
    };

    beforeAll(async () => {
      store = await open(() => nowMs);
    });
    beforeEach(() => {
      nowMs += 10 * CLAIM;
    });

    it('keeps a lease until its time is up, then hands it out with its last renewal', async () => {
      const started = lease();
      await store.start(started, TTL);
      nowMs += TTL - 1;
      expect(await lapsedOf(started)).toEqual([]);
      const renewed = { ...started, promptTokens: 10, completionTokens: 40 };
      expect(await store.renew([renewed], TTL)).toEqual([]);
      nowMs += TTL - 1;
      expect(await lapsedOf(started)).toEqual([]);
      nowMs += 1;
      expect(await lapsedOf(started)).toEqual([renewed]);
    });

    it('hands a lapsed lease to one claim at a time, and again after the claim time until it ends', async () => {
      const lapsed = lease(5);
      await store.start(lapsed, TTL);
      nowMs += TTL;
      expect(await lapsedOf(lapsed)).toEqual([lapsed]);
      expect(await lapsedOf(lapsed)).toEqual([]);
      nowMs += CLAIM;
      expect(await lapsedOf(lapsed)).toEqual([lapsed]);
      await store.end(lapsed);
      nowMs += CLAIM;
      expect(await lapsedOf(lapsed)).toEqual([]);
    });

    it('holds a lapsed lease through a grace: marked lapsed, handed out again only when the grace ends, a renewal clearing the mark', async () => {
      const GRACE = 120_000;
      const stalled = lease(5);
      await store.start(stalled, TTL);
      nowMs += TTL;
      const [claimed] = await lapsedOf(stalled);
      const lapsedAt = nowMs;
      expect(await store.holdLapsed(claimed, GRACE)).toBe('held');
      nowMs += GRACE - 1;
      expect(await lapsedOf(stalled)).toEqual([]);
      nowMs += 1;
      expect(await lapsedOf(stalled)).toEqual([{ ...stalled, lapsedAtMs: lapsedAt }]);

      // Its edge came back: the renewal is the lease again, unmarked, lapsing a lease time later.
      const back = lease(7);
      await store.start(back, TTL);
      nowMs += TTL;
      expect(await store.holdLapsed((await lapsedOf(back))[0], GRACE)).toBe('held');
      expect(await store.renew([back], TTL)).toEqual([]);
      nowMs += TTL;
      expect(await lapsedOf(back)).toEqual([back]);
    });

    it('leaves alone a lapsed lease renewed since it was claimed, and says so of one that ended', async () => {
      const [renewed, ended] = [lease(1), lease(2)];
      await store.start(renewed, TTL);
      await store.start(ended, TTL);
      nowMs += TTL;
      const claimed = await lapsedOf(renewed, ended);
      const fresh = { ...renewed, completionTokens: 99 };
      expect(await store.renew([fresh], TTL)).toEqual([]);
      await store.end(ended);
      const claimedOf = (mine: LeaseRecord) => claimed.find((l) => l.requestId === mine.requestId) ?? mine;
      expect(await store.holdLapsed(claimedOf(renewed), 120_000)).toBe('renewed');
      expect(await store.holdLapsed(claimedOf(ended), 120_000)).toBe('gone');
      nowMs += TTL;
      expect(await lapsedOf(renewed, ended)).toEqual([fresh]);
    });

    it('does not renew an ended or unknown lease, and says so', async () => {
      const [ended, running, never] = [lease(), lease(), lease()];
      await store.start(ended, TTL);
      await store.start(running, TTL);
      await store.end(ended);
      expect((await store.renew([ended, running, never], TTL)).sort()).toEqual([ended.requestId, never.requestId].sort());
      nowMs += TTL;
      expect(await lapsedOf(ended, running, never)).toEqual([running]);
    });

    it('hands out the oldest lapsed leases first, at most as many as asked', async () => {
      const [first, second] = [lease(1), lease(2)];
      await store.start(first, TTL);
      nowMs += 1;
      await store.start(second, TTL);
      nowMs += TTL;
      const claimed = (await store.claimLapsed(1000, CLAIM)).map((l) => l.requestId);
      expect(claimed.indexOf(first.requestId)).toBeLessThan(claimed.indexOf(second.requestId));
      await store.start(first, 0);
      await store.start(second, 0);
      expect(await store.claimLapsed(1, CLAIM)).toHaveLength(1);
    });
  });
}
