import { randomUUID } from 'node:crypto';
import { FINISH_MEMORY_MS, LimitSettings, LimitStore } from '../../src/store/limits/limit-store';
import { LimitStoreFactory } from './limit-store.contract';

const SETTINGS: LimitSettings = { requestsPerMinute: 30, concurrentPlaces: 3, placeRecoveryMs: 130_000 };
/** 2031-05-06 10:00:00 UTC. */
const MINUTE_START = Date.UTC(2031, 4, 6, 10, 0, 0);
const SECOND = 1000;

/**
 * The API's end of a request (LimitStore.finishRequest), run against each implementation: the
 * place freed and the tokens counted once per request id, beside the chat product's releases.
 */
export function describeFinishRequestContract(name: string, open: LimitStoreFactory): void {
  describe(`LimitStore.finishRequest contract: ${name}`, () => {
    let nowMs = MINUTE_START;
    let store: LimitStore;
    let account: string;
    const at = (ms: number) => {
      nowMs = ms;
    };
    const acquire = async (requestId: string) => (await store.acquirePlace(account, requestId)).granted;
    const release = async (requestId: string, tokens = 0) => (await store.releasePlace(account, requestId, tokens)).released;
    const finish = (requestId: string, tokens: number) => store.finishRequest(account, requestId, tokens);

    beforeAll(async () => {
      store = await open(SETTINGS, () => nowMs);
    });
    afterAll(() => store.close());
    beforeEach(() => {
      account = `acct_${randomUUID()}`;
      at(MINUTE_START);
    });

    it('frees the place and adds the tokens once per request id', async () => {
      for (const id of ['r1', 'r2', 'r3']) await acquire(id);
      expect(await finish('r1', 100)).toEqual({ released: true, repeated: false });
      expect(await finish('r1', 100)).toEqual({ released: false, repeated: true });
      expect(await acquire('r4')).toBe(true);
      expect(await acquire('r5')).toBe(false);
      expect(await store.getUsage(account)).toEqual({ todayTokens: 100, totalTokens: 100 });
    });

    it('counts the tokens of a request whose place had cleared or that never took one', async () => {
      await acquire('r1');
      at(MINUTE_START + 200 * SECOND);
      expect(await finish('r1', 30)).toEqual({ released: false, repeated: false });
      expect(await finish('refused-a-place', 0)).toEqual({ released: false, repeated: false });
      expect(await store.getUsage(account)).toEqual({ todayTokens: 30, totalTokens: 30 });
    });

    it('remembers a finished request id for an hour', async () => {
      expect(await finish('r1', 5)).toMatchObject({ repeated: false });
      at(MINUTE_START + FINISH_MEMORY_MS - 1);
      expect(await finish('r1', 5)).toMatchObject({ repeated: true });
      at(MINUTE_START + FINISH_MEMORY_MS);
      expect(await finish('r1', 5)).toMatchObject({ repeated: false });
      expect(await store.getUsage(account)).toEqual({ todayTokens: 10, totalTokens: 10 });
    });

    it('shares the usage with the chat product, whose releases always count', async () => {
      await finish('api-1', 1000);
      await release('chat-turn-1', 200);
      await release('chat-turn-1', 200);
      await finish('api-1', 1000);
      expect(await store.getUsage(account)).toEqual({ todayTokens: 1400, totalTokens: 1400 });
    });

    it('finishes each request id once when the same finish arrives 10 times at once', async () => {
      await acquire('r1');
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => finish('r1', 7)));
      expect(outcomes.filter((o) => !o.repeated)).toEqual([{ released: true, repeated: false }]);
      expect(await store.getUsage(account)).toEqual({ todayTokens: 7, totalTokens: 7 });
    });
  });
}
