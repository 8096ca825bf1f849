import { randomUUID } from 'node:crypto';
import { FreeTierGate } from '../../src/domain/free-tier-gate';
import { FreeRequest } from '../../src/domain/free-request';
import { EVENING, freeRequest, FreeTierStoreFactory, RESERVED, TEST_DEFAULTS, TEST_LIMITS } from './free-tier-fixtures';
import { FreeTierSettings, FreeTierStore } from '../../src/store/free-tier/free-tier-store';

/**
 * Which free requests are granted, and the refusal (docs/api.md#every-error-code) of each one that is not, in
 * the documented order of the checks; run against every FreeTierStore through FreeTierGate.
 */
export function describeFreeTierDecisions(name: string, open: FreeTierStoreFactory): void {
  describe(`free-tier decisions: ${name}`, () => {
    let nowMs: number;
    let store: FreeTierStore;
    let gate: FreeTierGate;
    let account: string;
    const reserve = (overrides: Partial<FreeRequest> = {}) => gate.reserve(freeRequest(account, overrides));
    const refusal = async (overrides: Partial<FreeRequest> = {}) => {
      const decision = await reserve(overrides);
      return decision.granted ? 'granted' : decision.refusal;
    };
    const set = (change: Partial<FreeTierSettings>) => gate.updateSettings(change);

    beforeEach(async () => {
      nowMs = EVENING;
      store = await open(TEST_DEFAULTS, () => nowMs);
      gate = new FreeTierGate(store, TEST_LIMITS);
      account = `acct_${randomUUID()}`;
    });

    it('grants a free request with max_tokens lowered to 2,048 and reserves prompt + 10% + max_tokens', async () => {
      expect(await reserve()).toEqual({ granted: true, maxTokens: 2048, reservedTokens: RESERVED });
      expect(await reserve({ maxTokens: 100, textPromptTokens: 7, imageCount: 2 })).toEqual({
        granted: true,
        maxTokens: 100,
        reservedTokens: 8 + 2048 + 100,
      });
    });

    it('refuses a switched-off free tier first, then a paused one', async () => {
      await set({ enabled: false, paused: true });
      expect(await refusal({ model: 'vendor-v4-pro', thinking: true })).toBe('switched-off');
      await set({ enabled: true });
      expect(await refusal({ model: 'vendor-v4-pro', thinking: true })).toBe('paused');
      await set({ paused: false });
      expect(await refusal()).toBe('granted');
    });

    it('refuses another model, then thinking, then a request too large, in that order', async () => {
      const everything = { model: 'vendor-v4-pro', thinking: true, jsonBytes: 320_001 };
      expect(await refusal(everything)).toBe('model');
      expect(await refusal({ ...everything, model: 'vendor-v4-flash' })).toBe('thinking');
      expect(await refusal({ ...everything, model: 'vendor-v4-flash', thinking: false })).toBe('request-too-large');
    });

    it('checks the size before the allowance and the allowance before the pool', async () => {
      await set({ dailyTokens: 0, poolTokens: 0 });
      expect(await refusal({ newMessageTokens: 65_001 })).toBe('request-too-large');
      expect(await refusal()).toBe('allowance-used-up');
      await set({ dailyTokens: RESERVED - 1 });
      expect(await refusal()).toBe('allowance-too-small');
      await set({ dailyTokens: RESERVED });
      expect(await refusal()).toBe('pool-exhausted');
    });

    it('counts the prompt as estimate + 10% + 1,024 per image against 80,000 tokens', async () => {
      expect(await refusal({ textPromptTokens: 72_727 })).toBe('granted'); // 79,999.7 -> 80,000
      expect(await refusal({ textPromptTokens: 72_728 })).toBe('request-too-large');
      expect(await refusal({ textPromptTokens: 68_000, imageCount: 5 })).toBe('granted'); // 74,800 + 5,120
      expect(await refusal({ textPromptTokens: 68_000, imageCount: 6 })).toBe('request-too-large'); // 74,800 + 6,144
    });

    it('limits the JSON to 320,000 bytes and the new message to 65,000 tokens outside the peak hours', async () => {
      expect(await refusal({ jsonBytes: 320_000, newMessageTokens: 65_000 })).toBe('granted');
      expect(await refusal({ jsonBytes: 320_001 })).toBe('request-too-large');
      expect(await refusal({ newMessageTokens: 65_001 })).toBe('request-too-large');
    });

    it('limits the new message to 25,000 tokens during the peak hours (00:00-17:00 UTC)', async () => {
      nowMs = Date.UTC(2031, 4, 6, 16, 59, 59);
      expect(await refusal({ newMessageTokens: 25_000 })).toBe('granted');
      expect(await refusal({ newMessageTokens: 25_001 })).toBe('request-too-large');
      nowMs = Date.UTC(2031, 4, 6, 17, 0, 0);
      expect(await refusal({ newMessageTokens: 25_001 })).toBe('granted');
      nowMs = Date.UTC(2031, 4, 7, 0, 0, 0);
      expect(await refusal({ newMessageTokens: 25_001 })).toBe('request-too-large');
    });

    it('reserves nothing for a refused request', async () => {
      await set({ dailyTokens: 2 * RESERVED });
      for (const overrides of [{ model: 'x' }, { thinking: true }, { jsonBytes: 999_999 }]) await reserve(overrides);
      expect(await refusal()).toBe('granted');
      expect(await refusal()).toBe('granted');
      expect(await refusal()).toBe('allowance-used-up');
    });

    it('keeps the settings: defaults first, then each change on its own', async () => {
      expect(await set({})).toEqual(TEST_DEFAULTS);
      expect(await set({ dailyTokens: 5 })).toEqual({ ...TEST_DEFAULTS, dailyTokens: 5 });
      expect(await set({ paused: true, poolTokens: 0 })).toEqual({ dailyTokens: 5, poolTokens: 0, paused: true, enabled: true });
      expect(await set({ enabled: false })).toEqual({ dailyTokens: 5, poolTokens: 0, paused: true, enabled: false });
      expect((await store.snapshot()).settings).toEqual({ dailyTokens: 5, poolTokens: 0, paused: true, enabled: false });
    });
  });
}
