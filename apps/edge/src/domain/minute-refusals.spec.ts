import { quotaV1 } from '@gw/contracts';
import { MinuteRefusals, REFUSAL_MARGIN_MS } from './minute-refusals';

/** 2031-05-06 10:01:00 UTC, the end of a clock minute by Redis's clock. */
const MINUTE_END_S = Date.UTC(2031, 4, 6, 10, 1, 0) / 1000;

/** quota-service's answer to a count `leftMs` before Redis's minute ends. */
const answer = (leftMs: number, figures: Partial<quotaV1.CountRequestResponse> = {}): quotaV1.CountRequestResponse => ({
  allowed: false,
  limit: 30,
  remaining: 0,
  resetUnixSeconds: MINUTE_END_S,
  retryAfterSeconds: Math.ceil(leftMs / 1000),
  nowUnixMs: MINUTE_END_S * 1000 - leftMs,
  ...figures,
});

describe('MinuteRefusals', () => {
  // The edge's clock (monotonic, from its own start) has nothing in common with Redis's.
  let now: number;
  let refusals: MinuteRefusals;
  beforeEach(() => {
    now = 5_000;
    refusals = new MinuteRefusals(100, () => now);
  });

  /** Asks at the edge's `askedAt`, the answer arriving at `now`. */
  const refuse = (accountId: string, leftMs: number, askedAt = now, figures: Partial<quotaV1.CountRequestResponse> = {}) =>
    refusals.remember(accountId, answer(leftMs, figures), askedAt);

  it("refuses until the minute's end by Redis's clock, less the margin, and then asks quota-service again", () => {
    refuse('acct_a', 20_000);
    now = 5_000 + 20_000 - REFUSAL_MARGIN_MS - 1;
    expect(refusals.refusal('acct_a')).toMatchObject({ allowed: false });
    now += 1;
    expect(refusals.refusal('acct_a')).toBeUndefined();
    expect(refusals.size).toBe(0);
  });

  it('gives the figures quota-service gave, Retry-After counting down to the minute end', () => {
    refuse('acct_a', 20_000, 5_000, { limit: 45 });
    expect(refusals.refusal('acct_a')).toEqual({
      allowed: false,
      limit: 45,
      remaining: 0,
      resetUnixSeconds: MINUTE_END_S,
      retryAfterSeconds: 20,
    });
    now = 5_000 + 9_999;
    expect(refusals.refusal('acct_a')?.retryAfterSeconds).toBe(11);
    now = 5_000 + 10_000;
    expect(refusals.refusal('acct_a')?.retryAfterSeconds).toBe(10);
    now = 5_000 + 20_000 - REFUSAL_MARGIN_MS - 1;
    expect(refusals.refusal('acct_a')?.retryAfterSeconds).toBe(1);
  });

  it('ends the refusal by when it asked, since Redis counted after that; Retry-After by when the answer came', () => {
    // The answer took 3 s to come back: Redis counted somewhere in between.
    now = 8_000;
    refuse('acct_a', 20_000, 5_000);
    expect(refusals.refusal('acct_a')?.retryAfterSeconds).toBe(20);
    now = 5_000 + 20_000 - REFUSAL_MARGIN_MS - 1;
    expect(refusals.refusal('acct_a')?.retryAfterSeconds).toBe(4);
    now += 1;
    expect(refusals.refusal('acct_a')).toBeUndefined();
  });

  it('remembers no answer without Redis time, no admission, and no answer whose minute has ended meanwhile', () => {
    refuse('acct_old_quota', 20_000, now, { nowUnixMs: 0 });
    refusals.remember('acct_allowed', answer(20_000, { allowed: true, remaining: 3, retryAfterSeconds: 0 }), now);
    refuse('acct_late', 2_000, now - 1_960);
    refuse('acct_nonsense', 61_000);
    expect(refusals.size).toBe(0);
    for (const account of ['acct_old_quota', 'acct_allowed', 'acct_late', 'acct_nonsense'])
      expect(refusals.refusal(account)).toBeUndefined();
  });

  it('keeps the refusal an account has while it lasts, and takes a new one once it ended', () => {
    refuse('acct_a', 10_000);
    refuse('acct_a', 30_000);
    now = 5_000 + 10_000 - REFUSAL_MARGIN_MS;
    expect(refusals.refusal('acct_a')).toBeUndefined();
    refuse('acct_a', 60_000, now, { resetUnixSeconds: MINUTE_END_S + 60, nowUnixMs: MINUTE_END_S * 1000 });
    expect(refusals.refusal('acct_a')).toMatchObject({ resetUnixSeconds: MINUTE_END_S + 60, retryAfterSeconds: 60 });
  });

  it('forgets ended refusals when another is remembered', () => {
    refuse('acct_a', 1_000);
    refuse('acct_b', 2_000);
    now += 2_000;
    refuse('acct_c', 20_000);
    expect(refusals.size).toBe(1);
  });

  it('holds at most its cap: the refusal that would end soonest makes room, also when it is the new one', () => {
    refusals = new MinuteRefusals(2, () => now);
    refuse('acct_a', 30_000);
    refuse('acct_b', 10_000);
    refuse('acct_c', 20_000);
    expect(refusals.size).toBe(2);
    expect(refusals.refusal('acct_b')).toBeUndefined();
    refuse('acct_d', 15_000);
    expect(refusals.refusal('acct_d')).toBeUndefined();
    expect(refusals.refusal('acct_a')).toBeDefined();
    expect(refusals.refusal('acct_c')).toBeDefined();
  });

  it('keeps, of many refusals past its cap, those that end last', () => {
    refusals = new MinuteRefusals(10, () => now);
    const lefts = Array.from({ length: 200 }, (_, i) => 1_000 + ((i * 7_919) % 59_000));
    lefts.forEach((left, i) => refuse(`acct_${i}`, left));
    const kept = lefts.map((left, i) => ({ left, held: refusals.refusal(`acct_${i}`) !== undefined }));
    const latest = [...lefts].sort((a, b) => b - a).slice(0, 10);
    expect(
      kept
        .filter((k) => k.held)
        .map((k) => k.left)
        .sort((a, b) => b - a),
    ).toEqual(latest);
    // And they end in order, each at its own time.
    for (const left of [...latest].reverse()) {
      now = 5_000 + left - REFUSAL_MARGIN_MS;
      expect(refusals.refusal(`acct_${lefts.indexOf(left)}`)).toBeUndefined();
      expect(refusals.size).toBe(latest.filter((l) => l > left).length);
    }
  });
});
