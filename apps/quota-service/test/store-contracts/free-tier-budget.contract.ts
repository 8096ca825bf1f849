import { randomUUID } from 'node:crypto';
import { FreeTierGate } from '../../src/domain/free-tier-gate';
import { FreeRequest } from '../../src/domain/free-request';
import { EVENING, freeRequest, FreeTierStoreFactory, RESERVED, TEST_DEFAULTS, TEST_LIMITS } from './free-tier-fixtures';
import { FreeTierStore } from '../../src/store/free-tier/free-tier-store';

const MINUTE = 60_000;

/**
 * How reservations use the account's allowance and the pool: held until settled with the real
 * tokens (once) or expired, reset at 00:00 UTC, never overspent by parallel requests; run
 * against every FreeTierStore through FreeTierGate.
 */
export function describeFreeTierBudget(name: string, open: FreeTierStoreFactory): void {
  describe(`free-tier allowance and pool: ${name}`, () => {
    let nowMs: number;
    let store: FreeTierStore;
    let gate: FreeTierGate;
    let account: string;
    const granted = async (request: FreeRequest) => (await gate.reserve(request)).granted;
    const fits = (accountId = account) => granted(freeRequest(accountId));

    beforeEach(async () => {
      nowMs = EVENING;
      store = await open(TEST_DEFAULTS, () => nowMs);
      gate = new FreeTierGate(store, TEST_LIMITS);
      account = `acct_${randomUUID()}`;
    });

    it('holds a reservation until it is settled, then counts only the real tokens', async () => {
      await gate.updateSettings({ dailyTokens: 2 * RESERVED });
      const first = freeRequest(account);
      expect(await granted(first)).toBe(true);
      expect(await fits()).toBe(true);
      expect(await gate.reserve(freeRequest(account))).toEqual({ granted: false, refusal: 'allowance-used-up' });
      expect(await store.settle(account, first.requestId, 1000)).toBe(true);
      // Left: 2 × 3,148 - 3,148 - 1,000 = 2,148.
      expect(await gate.reserve(freeRequest(account))).toEqual({ granted: false, refusal: 'allowance-too-small' });
      expect(await granted(freeRequest(account, { maxTokens: 1048 }))).toBe(true);
      expect(await gate.reserve(freeRequest(account, { maxTokens: 1 }))).toEqual({ granted: false, refusal: 'allowance-used-up' });
    });

    it('settles a reservation once, and a second reservation of one request id is the same one', async () => {
      await gate.updateSettings({ dailyTokens: 3 * RESERVED });
      const request = freeRequest(account);
      expect(await granted(request)).toBe(true);
      expect(await granted(request)).toBe(true);
      expect(await store.settle(account, request.requestId, RESERVED)).toBe(true);
      expect(await store.settle(account, request.requestId, RESERVED)).toBe(false);
      expect(await store.settle(account, 'never-reserved', 50)).toBe(false);
      expect(await fits()).toBe(true);
      expect(await fits()).toBe(true);
      expect(await fits()).toBe(false);
    });

    it('returns a reservation whole when settled with 0 tokens (the request never ran)', async () => {
      await gate.updateSettings({ dailyTokens: RESERVED });
      const request = freeRequest(account);
      expect(await granted(request)).toBe(true);
      expect(await store.settle(account, request.requestId, 0)).toBe(true);
      expect(await fits()).toBe(true);
    });

    it('returns a reservation that is not settled within 15 minutes; a late settle counts its real tokens', async () => {
      await gate.updateSettings({ dailyTokens: RESERVED + 100 });
      const request = freeRequest(account);
      expect(await granted(request)).toBe(true);
      nowMs = EVENING + 15 * MINUTE - 1;
      expect(await fits()).toBe(false);
      nowMs = EVENING + 15 * MINUTE;
      expect(await fits()).toBe(true);
      expect(await store.settle(account, request.requestId, 100)).toBe(true);
      expect(await store.settle(account, request.requestId, 100)).toBe(false);
      expect(await gate.reserve(freeRequest(account, { maxTokens: 1, textPromptTokens: 0 }))).toEqual({
        granted: false,
        refusal: 'allowance-used-up',
      });
    });

    it('tells the allowance used today: reservations while they live, then the real tokens, nothing after midnight', async () => {
      await gate.updateSettings({ dailyTokens: 3 * RESERVED });
      expect(await store.allowanceUsed(account)).toBe(0);
      const request = freeRequest(account);
      expect(await granted(request)).toBe(true);
      expect(await store.allowanceUsed(account)).toBe(RESERVED);
      await store.settle(account, request.requestId, 700);
      expect(await store.allowanceUsed(account)).toBe(700);
      expect(await granted(freeRequest(account))).toBe(true);
      nowMs = EVENING + 15 * MINUTE;
      expect(await store.allowanceUsed(account)).toBe(700);
      nowMs = Date.UTC(2031, 4, 8, 0, 0, 0);
      expect(await store.allowanceUsed(account)).toBe(0);
    });

    it('starts the allowance and the pool again at 00:00 UTC; a settle from yesterday changes nothing', async () => {
      await gate.updateSettings({ dailyTokens: RESERVED, poolTokens: 2 * RESERVED });
      nowMs = Date.UTC(2031, 4, 6, 23, 59, 59, 999);
      const late = freeRequest(account);
      expect(await granted(late)).toBe(true);
      expect(await fits()).toBe(false);
      expect(await granted(freeRequest(`${account}-b`))).toBe(true);
      expect(await gate.reserve(freeRequest(`${account}-c`))).toEqual({ granted: false, refusal: 'pool-exhausted' });

      nowMs = Date.UTC(2031, 4, 7, 0, 0, 0);
      expect(await store.settle(account, late.requestId, 5)).toBe(false);
      expect(await fits()).toBe(true);
      expect(await granted(freeRequest(`${account}-c`))).toBe(true);
      expect(await gate.reserve(freeRequest(`${account}-d`))).toEqual({ granted: false, refusal: 'pool-exhausted' });
    });

    it('shares the pool between accounts and gives the allowance back when the pool refuses', async () => {
      await gate.updateSettings({ dailyTokens: 10 * RESERVED, poolTokens: 2 * RESERVED });
      const other = `${account}-other`;
      expect(await fits(other)).toBe(true);
      expect(await fits()).toBe(true);
      expect(await gate.reserve(freeRequest(account))).toEqual({ granted: false, refusal: 'pool-exhausted' });
      await gate.updateSettings({ poolTokens: 20 * RESERVED });
      for (let i = 0; i < 9; i++) expect(await fits()).toBe(true);
      expect(await gate.reserve(freeRequest(account))).toEqual({ granted: false, refusal: 'allowance-used-up' });
    });

    it('never grants more than the allowance covers when 50 requests of an account arrive at once', async () => {
      await gate.updateSettings({ dailyTokens: 7 * RESERVED + RESERVED / 2 });
      const decisions = await Promise.all(Array.from({ length: 50 }, () => fits()));
      expect(decisions.filter(Boolean)).toHaveLength(7);
    });

    it('never grants more than the pool covers when 50 requests of 10 accounts arrive at once', async () => {
      await gate.updateSettings({ dailyTokens: 3 * RESERVED, poolTokens: 12 * RESERVED });
      const accounts = Array.from({ length: 10 }, (_, i) => `${account}-${i}`);
      const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => fits(accounts[i % 10])));
      expect(decisions.filter(Boolean)).toHaveLength(12);
      const perAccount = accounts.map((_, a) => decisions.filter((ok, i) => ok && i % 10 === a).length);
      expect(Math.max(...perAccount)).toBeLessThanOrEqual(3);
    });

    it('grants exactly what both allow when the pool is the smaller one', async () => {
      await gate.updateSettings({ dailyTokens: 10 * RESERVED, poolTokens: 7 * RESERVED });
      const decisions = await Promise.all(Array.from({ length: 50 }, () => fits()));
      expect(decisions.filter(Boolean)).toHaveLength(7);
    });
  });
}
