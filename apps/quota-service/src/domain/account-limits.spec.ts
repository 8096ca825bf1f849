import { status } from '@grpc/grpc-js';
import { InMemoryLimitStore } from '../store/limits/in-memory-limit-store';
import { MAX_ID_LENGTH } from '@gw/bounds';
import { AccountLimits } from './account-limits';
import { PlaceAsk } from '../store/limits/limit-store';
import { DomainError } from '@gw/errors';
import { grpcCodeOf } from '@gw/service-kit';

const MINUTE_START = Date.UTC(2031, 4, 6, 10, 0, 0);
const CHAT: PlaceAsk = { caller: 'chat-product', countsTurn: true };
const EDGE: PlaceAsk = { caller: 'edge', countsTurn: false };

describe('AccountLimits', () => {
  let nowMs: number;
  let ledger: AccountLimits;

  beforeEach(() => {
    nowMs = MINUTE_START + 20_000;
    ledger = new AccountLimits(
      new InMemoryLimitStore({ requestsPerMinute: 30, concurrentPlaces: 3, placeRecoveryMs: 130_000 }, () => nowMs),
    );
  });

  const rejectsWith = async (work: Promise<unknown>, code: status) => {
    const err: unknown = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect(grpcCodeOf(err)).toBe(code);
  };

  it('counts down remaining to 0 and gives retry-after only on the refusal', async () => {
    const first = await ledger.countRequest('a');
    expect(first).toEqual({
      allowed: true,
      limit: 30,
      remaining: 29,
      resetUnixSeconds: MINUTE_START / 1000 + 60,
      retryAfterSeconds: 0,
      nowUnixMs: MINUTE_START + 20_000,
    });
    for (let i = 0; i < 28; i++) await ledger.countRequest('a');
    expect(await ledger.countRequest('a')).toMatchObject({ allowed: true, remaining: 0, retryAfterSeconds: 0 });
    expect(await ledger.countRequest('a')).toEqual({
      allowed: false,
      limit: 30,
      remaining: 0,
      resetUnixSeconds: MINUTE_START / 1000 + 60,
      retryAfterSeconds: 40,
      nowUnixMs: MINUTE_START + 20_000,
    });
    expect(await ledger.countRequest('a')).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('adds prompt and completion tokens to the usage', async () => {
    await ledger.acquirePlace('a', 'r1', CHAT);
    expect(await ledger.releasePlace('a', 'r1', 100, 23, 'chat-product')).toEqual({ released: true });
    expect(await ledger.releasePlace('a', 'r1', 7, 0, 'chat-product')).toEqual({ released: false });
    expect(await ledger.getUsage('a')).toEqual({ todayTokens: 130, totalTokens: 130 });
  });

  it('refuses a place another caller took (PERMISSION_DENIED), to give back or to take under its id, and changes nothing', async () => {
    expect(await ledger.acquirePlace('a', 'api', EDGE)).toEqual({ granted: true, limit: 3 });
    await rejectsWith(ledger.releasePlace('a', 'api', 5, 5, 'chat-product'), status.PERMISSION_DENIED);
    await rejectsWith(ledger.acquirePlace('a', 'api', CHAT), status.PERMISSION_DENIED);
    expect(await ledger.getUsage('a')).toEqual({ todayTokens: 0, totalTokens: 0 });
    expect(await ledger.countRequest('a')).toMatchObject({ remaining: 29 });
    expect(await ledger.acquirePlace('a', 'turn', CHAT)).toMatchObject({ granted: true, rateLimited: false, count: { remaining: 28 } });
    await rejectsWith(ledger.releasePlace('a', 'turn', 5, 5, 'edge'), status.PERMISSION_DENIED);
    expect(await ledger.releasePlace('a', 'turn', 5, 5, 'chat-product')).toEqual({ released: true });
  });

  it("answers a chat turn over the minute's limit as rate limited, with the count's Retry-After", async () => {
    for (let i = 0; i < 30; i++) await ledger.countRequest('a');
    expect(await ledger.acquirePlace('a', 'turn', CHAT)).toEqual({
      granted: false,
      limit: 3,
      rateLimited: true,
      count: {
        allowed: false,
        limit: 30,
        remaining: 0,
        resetUnixSeconds: MINUTE_START / 1000 + 60,
        retryAfterSeconds: 40,
        nowUnixMs: nowMs,
      },
    });
    expect(await ledger.acquirePlace('a', 'api', EDGE)).toEqual({ granted: true, limit: 3 });
  });

  it('refuses empty or overlong ids with INVALID_ARGUMENT', async () => {
    await rejectsWith(ledger.countRequest(''), status.INVALID_ARGUMENT);
    await rejectsWith(ledger.acquirePlace('a', '', CHAT), status.INVALID_ARGUMENT);
    await rejectsWith(ledger.acquirePlace('x'.repeat(MAX_ID_LENGTH + 1), 'r1', CHAT), status.INVALID_ARGUMENT);
    await rejectsWith(ledger.releasePlace('', 'r1', 1, 1, 'chat-product'), status.INVALID_ARGUMENT);
    await rejectsWith(ledger.getUsage(''), status.INVALID_ARGUMENT);
  });

  it('refuses negative or unsafe token counts with INVALID_ARGUMENT and records nothing', async () => {
    await rejectsWith(ledger.releasePlace('a', 'r1', -1, 5, 'chat-product'), status.INVALID_ARGUMENT);
    await rejectsWith(ledger.releasePlace('a', 'r1', 5, 1.5, 'chat-product'), status.INVALID_ARGUMENT);
    await rejectsWith(ledger.releasePlace('a', 'r1', Number.MAX_SAFE_INTEGER, 1, 'chat-product'), status.INVALID_ARGUMENT);
    expect(await ledger.getUsage('a')).toEqual({ todayTokens: 0, totalTokens: 0 });
  });
});
