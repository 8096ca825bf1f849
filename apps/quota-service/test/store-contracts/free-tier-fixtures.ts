import { randomUUID } from 'node:crypto';
import { FreeRequest, FreeTierLimits } from '../../src/domain/free-request';
import { FreeTierSettings, FreeTierStore } from '../../src/store/free-tier/free-tier-store';

/** Opens a FreeTierStore of its own (empty, its own pool) with these defaults and this clock (ms). */
export type FreeTierStoreFactory = (defaults: FreeTierSettings, now: () => number) => Promise<FreeTierStore>;

/** The configuration's defaults, as the contract tests use them. */
export const TEST_DEFAULTS: FreeTierSettings = { dailyTokens: 200_000, poolTokens: 50_000_000, paused: false, enabled: true };

/** The free limits of docs/api.md#limits, peak hours 00:00-17:00 UTC. */
export const TEST_LIMITS: FreeTierLimits = {
  freeModel: 'vendor-v4-flash',
  replyMaxTokens: 2048,
  promptMaxTokens: 80_000,
  jsonMaxBytes: 320_000,
  newMessageMaxTokens: 65_000,
  newMessagePeakMaxTokens: 25_000,
  peakHours: { startHour: 0, endHour: 17 },
  reservationTtlMs: 900_000,
};

/** 2031-05-06 20:00 UTC: outside the peak hours. */
export const EVENING = Date.UTC(2031, 4, 6, 20, 0, 0);

/** A free request that passes every check: 1,000 + 10% prompt tokens, max_tokens lowered to 2,048. */
export function freeRequest(accountId: string, overrides: Partial<FreeRequest> = {}): FreeRequest {
  return {
    accountId,
    requestId: `req_${randomUUID()}`,
    model: 'vendor-v4-flash',
    thinking: false,
    textPromptTokens: 1000,
    imageCount: 0,
    newMessageTokens: 100,
    jsonBytes: 5000,
    maxTokens: 8192,
    ...overrides,
  };
}

/** What freeRequest() reserves: 1,100 prompt tokens plus 2,048 reply tokens. */
export const RESERVED = 1100 + 2048;
