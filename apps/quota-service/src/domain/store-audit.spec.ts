import { AccountFacts, StoreAuditSource } from '../store/audit/store-audit-source';
import {
  accountViolations,
  auditStore,
  freePoolViolations,
  isRepairing,
  LEASE_OVERDUE_MS,
  lineViolations,
  repairingLine,
} from './store-audit';
import { LentLine } from './line-returner';

const NOW = Date.UTC(2031, 4, 6, 10, 0, 0);
const RULES = { nowMs: NOW, placeMaxAgeMs: 130_000 };

/** An account whose line of 100,000 holds one running request's 5,000, leased, in its place. */
const sound = (overrides: Partial<AccountFacts> = {}): AccountFacts => ({
  accountId: 'a',
  credit: { granted: 100_000, charged: 0, returned: 0, held: 5000 },
  holds: new Map([['r1', 5000]]),
  places: new Map([['r1', NOW - 1000]]),
  leased: new Set(['r1']),
  lineKnown: true,
  billsWaiting: 0,
  ...overrides,
});
/**
 * The store lost the account's line and since then had one finished request's bill re-sent
 * (charged 3,000, waiting for billing-service) and one running request's hold of 5,000 held again.
 */
const repairing = (overrides: Partial<AccountFacts> = {}): AccountFacts =>
  sound({ credit: { granted: 0, charged: 3000, returned: 0, held: 5000 }, lineKnown: false, billsWaiting: 1, ...overrides });
const lent = (granted: number, charged = 0, returned = 0): LentLine => ({ accountId: 'a', granted, charged, returned });

describe('accountViolations', () => {
  it('finds nothing in an account whose holds are leased, summed and within the line', () => {
    expect(accountViolations(sound(), RULES)).toEqual([]);
  });

  it('names a hold without a lease, and a held total that is not its holds', () => {
    const orphaned = sound({
      holds: new Map([
        ['r1', 5000],
        ['ghost', 700],
      ]),
      credit: { granted: 100_000, charged: 0, returned: 0, held: 5700 },
    });
    expect(accountViolations(orphaned, RULES)).toEqual([
      { kind: 'hold-without-lease', accountId: 'a', requestId: 'ghost', detail: 'holds 700 micro-LYD with no lease' },
    ]);
    expect(accountViolations(sound({ credit: { granted: 100_000, charged: 0, returned: 0, held: 5005 } }), RULES)).toEqual([
      { kind: 'held-not-holds', accountId: 'a', requestId: '', detail: 'held 5005 micro-LYD, its holds 5000' },
    ]);
  });

  it('names holds beyond the line', () => {
    const overdrawn = sound({ credit: { granted: 10_000, charged: 4000, returned: 2000, held: 5000 } });
    expect(accountViolations(overdrawn, RULES)).toEqual([
      { kind: 'held-beyond-line', accountId: 'a', requestId: '', detail: 'held 5000 micro-LYD in a line of 4000' },
    ]);
  });

  it('names a place without a lease held past PLACE_RECOVERY_SECONDS, not one with a lease or a young one', () => {
    const places = new Map([
      ['r1', NOW - 500_000],
      ['chat-old', NOW - 130_001],
      ['chat-young', NOW - 129_000],
    ]);
    expect(accountViolations(sound({ places }), RULES)).toEqual([
      { kind: 'place-overdue', accountId: 'a', requestId: 'chat-old', detail: 'a place held 130 s without a lease' },
    ]);
  });
});

describe('lineViolations', () => {
  it("accepts totals here between billing-service's before and after: lent there first, charged and returned here first", () => {
    const here = sound({ credit: { granted: 100_000, charged: 3000, returned: 1000, held: 0 } });
    expect(lineViolations(here, lent(100_000, 2000, 1000), lent(150_000, 3000, 1000))).toEqual([]);
  });

  it('names a line granted beyond what billing-service lent, or charged or returned behind it', () => {
    const here = sound({ credit: { granted: 100_001, charged: 1999, returned: 999, held: 0 } });
    expect(lineViolations(here, lent(100_000, 2000, 1000), lent(100_000, 2000, 1000))).toEqual([
      {
        kind: 'lines-disagree',
        accountId: 'a',
        requestId: '',
        detail:
          'granted 100001 micro-LYD here, 100000 at billing-service; charged 1999 micro-LYD here, 2000 at billing-service; returned 999 micro-LYD here, 1000 at billing-service',
      },
    ]);
  });

  it('names a line here for an account billing-service never lent to', () => {
    expect(lineViolations(sound(), undefined, undefined)).toEqual([
      { kind: 'lines-disagree', accountId: 'a', requestId: '', detail: 'granted 100000 micro-LYD here, 0 at billing-service' },
    ]);
  });
});

describe('a line the store is repairing', () => {
  it('is one the store lost (no granted total) and charged, returned or held in since; not a line it never had', () => {
    expect(isRepairing(repairing())).toBe(true);
    expect(isRepairing(repairing({ credit: { granted: 0, charged: 0, returned: 0, held: 1 } }))).toBe(true);
    expect(isRepairing(sound())).toBe(false);
    // A chat product's place only: no line at all.
    expect(isRepairing(sound({ lineKnown: false, credit: { granted: 0, charged: 0, returned: 0, held: 0 }, holds: new Map() }))).toBe(
      false,
    );
  });

  it("is no violation while its totals are partial: charged, returned and granted behind billing-service's, holds beyond its own totals", () => {
    expect(accountViolations(repairing(), RULES)).toEqual([]);
    // billing-service lent 100,000, applied 4,000 of charges and 90,000 of returns: 6,000 left, 5,000 held.
    expect(lineViolations(repairing(), lent(100_000, 4000, 90_000), lent(100_000, 7000, 90_000))).toEqual([]);
  });

  it('names holds beyond what billing-service lent and has not seen charged or returned (granted after, the rest before)', () => {
    expect(lineViolations(repairing(), lent(100_000, 4000, 91_001), lent(100_000, 4000, 91_001))).toEqual([
      { kind: 'held-beyond-line', accountId: 'a', requestId: '', detail: 'held 5000 micro-LYD, billing-service lent 4999' },
    ]);
    // A charge applied between the store's look and the second read does not count against the holds.
    expect(lineViolations(repairing(), lent(95_000, 4000, 90_000), lent(99_000, 9000, 90_000))).toEqual([]);
    expect(lineViolations(repairing(), undefined, undefined)).toHaveLength(1);
  });

  it('tells the operator what the store rebuilt and what it waits for', () => {
    expect(repairingLine(repairing(), lent(100_000, 4000, 90_000))).toEqual({
      accountId: 'a',
      detail:
        'the store lost this line: charged 3000, returned 0 and held 5000 micro-LYD here since, charged 4000 at billing-service; ' +
        "bills waiting for billing-service: 1, then billing-service's totals are adopted",
    });
    expect(repairingLine(repairing({ billsWaiting: 0 }), undefined).detail).toContain('its bills are applied, then');
  });
});

describe('freePoolViolations', () => {
  it('accepts a pool used from 0 to its size, and names one below zero or past it', () => {
    expect([...freePoolViolations(0, 100), ...freePoolViolations(100, 100)]).toEqual([]);
    expect(freePoolViolations(-3, 100)).toEqual([
      { kind: 'free-pool-below-zero', accountId: '', requestId: '', detail: 'used -3 tokens of a pool of 100' },
    ]);
    expect(freePoolViolations(101, 100)).toHaveLength(1);
  });
});

describe('auditStore', () => {
  it("reads billing-service's lines before and after each batch of accounts, and reports every rule broken, at most `max`, and the lines being repaired apart", async () => {
    const reads: string[] = [];
    const source: StoreAuditSource = {
      async *accountIds() {
        yield ['a'];
        yield ['b'];
      },
      facts: async (ids) => {
        reads.push(`facts ${ids.join()}`);
        return ids.map((accountId) => (accountId === 'a' ? repairing() : sound({ accountId: 'b', leased: new Set() })));
      },
      overdueLeases: async (beforeMs) => {
        expect(beforeMs).toBe(NOW - LEASE_OVERDUE_MS);
        return [{ requestId: 'stuck', accountId: 'c', lapsedAtMs: NOW - 90_000 }];
      },
      freePoolUsed: async () => 7,
    };
    const deps = {
      source,
      freeTier: { snapshot: async () => ({ nowMs: NOW, settings: { dailyTokens: 10, poolTokens: 5, paused: false, enabled: true } }) },
      linesOf: async (ids: readonly string[]) => {
        reads.push(`lines ${ids.join()}`);
        return ids.map((accountId) => ({ ...lent(100_000), accountId }));
      },
      placeMaxAgeMs: 130_000,
    };
    const report = await auditStore(deps, 10);
    expect(reads).toEqual(['lines a', 'facts a', 'lines a', 'lines b', 'facts b', 'lines b']);
    expect(report.accountsChecked).toBe(2);
    expect(report.violations.map((v) => `${v.kind} ${v.accountId} ${v.requestId}`)).toEqual([
      'hold-without-lease b r1',
      'lease-overdue c stuck',
      'free-pool-below-zero  ',
    ]);
    expect(report.repairingLines).toEqual([repairingLine(repairing(), lent(100_000))]);
    expect((await auditStore(deps, 2)).violations).toHaveLength(2);
  });
});
