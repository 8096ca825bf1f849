import { randomUUID } from 'node:crypto';
import { ANY_CALLER, LimitSettings, LimitStore, PlaceAsk } from '../../src/store/limits/limit-store';

/** Opens the store under test with these settings and this clock (ms). */
export type LimitStoreFactory = (settings: LimitSettings, now: () => number) => Promise<LimitStore>;

const SETTINGS: LimitSettings = { requestsPerMinute: 30, concurrentPlaces: 3, placeRecoveryMs: 130_000 };
/** 2031-05-06 10:00:00 UTC: the start of a clock minute. */
const MINUTE_START = Date.UTC(2031, 4, 6, 10, 0, 0);
const SECOND = 1000;
/** The chat product's ask for a place: a turn, counted with it. */
const CHAT: PlaceAsk = { caller: 'chat-product', countsTurn: true };

/**
 * The behaviour every LimitStore must have (docs/api.md#rate-limits), defined once and run against
 * each implementation. The store's clock is driven by the tests; each test uses fresh accounts.
 */
export function describeLimitStoreContract(name: string, open: LimitStoreFactory): void {
  describe(`LimitStore contract: ${name}`, () => {
    let nowMs = MINUTE_START;
    let store: LimitStore;
    let account: string;
    const at = (ms: number) => {
      nowMs = ms;
    };
    const acquire = async (requestId: string) => (await store.acquirePlace(account, requestId)).granted;
    const release = async (requestId: string, tokens = 0) => (await store.releasePlace(account, requestId, tokens)).released;

    beforeAll(async () => {
      store = await open(SETTINGS, () => nowMs);
    });
    afterAll(() => store.close());
    beforeEach(() => {
      account = `acct_${randomUUID()}`;
      at(MINUTE_START);
    });

    describe('requests per minute', () => {
      it('allows 30, then refuses the 31st with the count at the limit and retry-after to the minute end', async () => {
        at(MINUTE_START + 15_500);
        for (let i = 1; i <= 30; i++) {
          expect(await store.countRequest(account)).toMatchObject({ allowed: true, count: i, limit: 30 });
        }
        const refused = await store.countRequest(account);
        expect(refused).toEqual({
          allowed: false,
          count: 30,
          limit: 30,
          resetUnixSeconds: MINUTE_START / 1000 + 60,
          retryAfterSeconds: 45,
          nowMs: MINUTE_START + 15_500,
        });
      });

      it('does not count refused requests', async () => {
        for (let i = 0; i < 40; i++) await store.countRequest(account);
        expect(await store.countRequest(account)).toMatchObject({ allowed: false, count: 30 });
      });

      it('gives the end of the current minute in Unix seconds as reset time', async () => {
        expect(await store.countRequest(account)).toMatchObject({ resetUnixSeconds: MINUTE_START / 1000 + 60, retryAfterSeconds: 60 });
        at(MINUTE_START + 59_999);
        expect(await store.countRequest(account)).toMatchObject({ resetUnixSeconds: MINUTE_START / 1000 + 60, retryAfterSeconds: 1 });
        at(MINUTE_START + 60_000);
        expect(await store.countRequest(account)).toMatchObject({ resetUnixSeconds: MINUTE_START / 1000 + 120, retryAfterSeconds: 60 });
      });

      it('starts a new count when the clock minute changes', async () => {
        at(MINUTE_START + 30 * SECOND);
        for (let i = 0; i < 35; i++) await store.countRequest(account);
        at(MINUTE_START + 59_999);
        expect(await store.countRequest(account)).toMatchObject({ allowed: false, count: 30 });
        at(MINUTE_START + 60_000);
        expect(await store.countRequest(account)).toMatchObject({ allowed: true, count: 1 });
      });

      it('counts each account separately', async () => {
        for (let i = 0; i < 30; i++) await store.countRequest(account);
        expect(await store.countRequest(`${account}-other`)).toMatchObject({ allowed: true, count: 1 });
      });
    });

    describe('concurrency places', () => {
      it('grants 3 places and refuses the 4th', async () => {
        expect(await store.acquirePlace(account, 'r1')).toEqual({ granted: true, limit: 3 });
        expect(await acquire('r2')).toBe(true);
        expect(await acquire('r3')).toBe(true);
        expect(await store.acquirePlace(account, 'r4')).toEqual({ granted: false, limit: 3, refusal: 'no-place' });
        expect(await store.acquirePlace(`${account}-other`, 'r4')).toEqual({ granted: true, limit: 3 });
      });

      it('frees one place on release', async () => {
        for (const id of ['r1', 'r2', 'r3']) await acquire(id);
        expect(await release('r2')).toBe(true);
        expect(await acquire('r4')).toBe(true);
        expect(await acquire('r5')).toBe(false);
      });

      it('frees nothing extra when a place is released twice, or never held', async () => {
        for (const id of ['r1', 'r2', 'r3']) await acquire(id);
        expect(await release('r1')).toBe(true);
        expect(await release('r1')).toBe(false);
        expect(await release('never-held')).toBe(false);
        expect(await acquire('r4')).toBe(true);
        expect(await acquire('r5')).toBe(false);
      });

      it('holds one place for a request id that asks twice', async () => {
        expect(await acquire('r1')).toBe(true);
        expect(await acquire('r1')).toBe(true);
        expect(await acquire('r2')).toBe(true);
        expect(await acquire('r3')).toBe(true);
        expect(await acquire('r4')).toBe(false);
      });

      it('clears all places 130 s after the last grant', async () => {
        for (const id of ['r1', 'r2', 'r3']) await acquire(id);
        at(MINUTE_START + 130_000 - 1);
        expect(await acquire('r4')).toBe(false);
        at(MINUTE_START + 130_000);
        expect(await acquire('r4')).toBe(true);
        expect(await acquire('r5')).toBe(true);
        expect(await acquire('r6')).toBe(true);
        expect(await acquire('r7')).toBe(false);
        expect(await release('r1')).toBe(false);
        expect(await acquire('r7')).toBe(false);
      });

      it('does not let refused requests delay the clearing', async () => {
        for (const id of ['r1', 'r2', 'r3']) await acquire(id);
        for (const seconds of [1, 60, 129]) {
          at(MINUTE_START + seconds * SECOND);
          expect(await acquire(`refused-${seconds}`)).toBe(false);
        }
        at(MINUTE_START + 130 * SECOND);
        expect(await acquire('r4')).toBe(true);
      });

      it('counts the recovery time from the latest grant, not from releases', async () => {
        await acquire('r1');
        at(MINUTE_START + 100 * SECOND);
        await acquire('r2');
        await acquire('r3');
        at(MINUTE_START + 200 * SECOND);
        expect(await release('r3')).toBe(true);
        expect(await acquire('r4')).toBe(true);
        at(MINUTE_START + 329_999);
        expect(await acquire('r5')).toBe(false);
        at(MINUTE_START + 330 * SECOND);
        expect(await acquire('r5')).toBe(true);
        expect(await release('r2')).toBe(false);
      });
    });

    describe('who took a place', () => {
      const chatTurn = async (requestId: string) => store.acquirePlace(account, requestId, CHAT);

      it("refuses to give an API request's place to the chat product, and leaves it and the usage as they were", async () => {
        for (const id of ['api1', 'api2', 'api3']) expect(await acquire(id)).toBe(true);
        for (const id of ['api1', 'api2', 'api3'])
          expect(await store.releasePlace(account, id, 100, 'chat-product')).toEqual({ released: false, refused: true });
        expect(await chatTurn('turn1')).toMatchObject({ granted: false, refusal: 'no-place' });
        expect(await store.getUsage(account)).toEqual({ todayTokens: 0, totalTokens: 0 });
        expect(await store.releasePlace(account, 'api1', 10, 'edge')).toEqual({ released: true, refused: false });
        expect(await chatTurn('turn1')).toMatchObject({ granted: true });
      });

      it("refuses the chat product a place under an API request's id (nothing counted), and the edge the chat product's", async () => {
        expect(await acquire('api1')).toBe(true);
        expect(await chatTurn('api1')).toEqual({ granted: false, limit: 3, refusal: 'another-callers' });
        expect(await chatTurn('turn1')).toMatchObject({ granted: true, count: { count: 1 } });
        expect(await store.acquirePlace(account, 'turn1')).toEqual({ granted: false, limit: 3, refusal: 'another-callers' });
        expect(await store.releasePlace(account, 'turn1', 5, 'edge')).toEqual({ released: false, refused: true });
        expect(await store.releasePlace(account, 'turn1', 5, 'chat-product')).toEqual({ released: true, refused: false });
        expect(await store.getUsage(account)).toEqual({ todayTokens: 5, totalTokens: 5 });
      });

      it("keeps the chat product's place when the edge finishes a request of the same id", async () => {
        expect(await chatTurn('shared-id')).toMatchObject({ granted: true });
        expect(await store.finishRequest(account, 'shared-id', 3)).toEqual({ released: false, repeated: false });
        expect(await store.releasePlace(account, 'shared-id', 4, 'chat-product')).toEqual({ released: true, refused: false });
      });

      it('lets a plain-text caller (no identity known) give back any place, as before places had owners', async () => {
        expect(await chatTurn('turn1')).toMatchObject({ granted: true });
        expect(await acquire('api1')).toBe(true);
        expect(await store.releasePlace(account, 'turn1', 1, ANY_CALLER)).toEqual({ released: true, refused: false });
        expect(await store.releasePlace(account, 'api1', 1, ANY_CALLER)).toEqual({ released: true, refused: false });
      });
    });

    describe("the chat product's turns", () => {
      const chatTurn = async (requestId: string) => store.acquirePlace(account, requestId, CHAT);

      it('counts each turn as it takes its place: 30 a minute, then rate limited with nothing taken', async () => {
        at(MINUTE_START + 15_500);
        const granted: boolean[] = [];
        for (let n = 1; n <= 40; n++) {
          const place = await chatTurn(`turn${n}`);
          granted.push(place.granted);
          if (place.granted) await store.releasePlace(account, `turn${n}`, 1, 'chat-product');
          if (n === 30) expect(place.count).toMatchObject({ allowed: true, count: 30, limit: 30 });
          if (n === 31)
            expect(place).toEqual({
              granted: false,
              limit: 3,
              refusal: 'rate-limited',
              count: {
                allowed: false,
                count: 30,
                limit: 30,
                resetUnixSeconds: MINUTE_START / 1000 + 60,
                retryAfterSeconds: 45,
                nowMs: MINUTE_START + 15_500,
              },
            });
        }
        expect(granted.filter(Boolean)).toHaveLength(30);
        expect(await store.countRequest(account)).toMatchObject({ allowed: false, count: 30 });
        at(MINUTE_START + 60_000);
        expect(await chatTurn('next-minute')).toMatchObject({ granted: true, count: { allowed: true, count: 1 } });
      });

      it('counts a turn refused a place, but not a request id asking again for the place it holds', async () => {
        for (const id of ['api1', 'api2', 'api3']) await acquire(id);
        expect(await chatTurn('turn1')).toMatchObject({ granted: false, refusal: 'no-place', count: { count: 1 } });
        await release('api1');
        expect(await chatTurn('turn2')).toMatchObject({ granted: true, count: { count: 2 } });
        expect(await chatTurn('turn2')).toMatchObject({ granted: true, count: { count: 2 } });
      });

      it("takes the turn an older chat product's CountRequest counted, not another; the edge's counts leave none", async () => {
        expect(await store.countRequest(account, true)).toMatchObject({ allowed: true, count: 1 });
        expect(await chatTurn('turn1')).toMatchObject({ granted: true, count: { count: 1 } });
        expect(await chatTurn('turn2')).toMatchObject({ granted: true, count: { count: 2 } });
        expect(await store.countRequest(account)).toMatchObject({ allowed: true, count: 3 });
        expect(await chatTurn('turn3')).toMatchObject({ granted: true, count: { count: 4 } });
        // A counted turn is of its minute only.
        expect(await store.countRequest(account, true)).toMatchObject({ count: 5 });
        at(MINUTE_START + 60_000);
        expect(await store.releasePlace(account, 'turn1', 0, 'chat-product')).toMatchObject({ released: true });
        expect(await chatTurn('turn4')).toMatchObject({ granted: true, count: { count: 1 } });
      });

      it('never places more turns in a minute than it counted, whatever mix of calls', async () => {
        for (let n = 0; n < 30; n++) await store.countRequest(account, true);
        expect(await store.countRequest(account, true)).toMatchObject({ allowed: false });
        const granted: boolean[] = [];
        for (let n = 1; n <= 40; n++) {
          granted.push((await chatTurn(`turn${n}`)).granted);
          await store.releasePlace(account, `turn${n}`, 0, 'chat-product');
        }
        expect(granted.filter(Boolean)).toHaveLength(30);
      });
    });

    describe('usage', () => {
      it('is zero for an account that never used anything', async () => {
        expect(await store.getUsage(account)).toEqual({ todayTokens: 0, totalTokens: 0 });
      });

      it('adds the tokens of each release to today and total', async () => {
        await acquire('r1');
        await acquire('r2');
        expect(await release('r1', 120)).toBe(true);
        expect(await release('r2', 30)).toBe(true);
        expect(await store.getUsage(account)).toEqual({ todayTokens: 150, totalTokens: 150 });
      });

      it('adds tokens even when the place had cleared or was released already (chat product path)', async () => {
        await acquire('chat-turn-1');
        expect(await release('chat-turn-1', 500)).toBe(true);
        expect(await release('chat-turn-1', 7)).toBe(false);
        await acquire('chat-turn-2');
        at(MINUTE_START + 200 * SECOND);
        expect(await release('chat-turn-2', 40)).toBe(false);
        expect(await store.getUsage(account)).toEqual({ todayTokens: 547, totalTokens: 547 });
      });

      it('starts today again at 00:00 UTC and keeps the total', async () => {
        const endOfDay = Date.UTC(2031, 4, 6, 23, 59, 59, 500);
        at(endOfDay);
        await release('r1', 100);
        expect(await store.getUsage(account)).toEqual({ todayTokens: 100, totalTokens: 100 });
        at(Date.UTC(2031, 4, 7));
        expect(await store.getUsage(account)).toEqual({ todayTokens: 0, totalTokens: 100 });
        await release('r2', 50);
        expect(await store.getUsage(account)).toEqual({ todayTokens: 50, totalTokens: 150 });
        at(Date.UTC(2031, 4, 9, 12));
        await release('r3', 1);
        expect(await store.getUsage(account)).toEqual({ todayTokens: 1, totalTokens: 151 });
      });
    });
  });
}
