import { SpendRule, SPEND_RULE } from '@gw/money';
import { RuleReplay, SpendBooks } from './spend-replay-account';
import {
  keysOf,
  legitTraffic,
  OLD_KEY,
  Pattern,
  PATTERNS,
  PER_MINUTE,
  planAccount,
  requestCost,
  RequestSizes,
  seeded,
} from './spend-traffic';
import { candidateRules, ReplayTally } from './spend-replay-tally';

/*
 * The replay that chose the leaked-key rule (docs/architecture.md#a-leaked-key-caught-early).
 * Synthetic accounts of each traffic pattern run for 35 days of history and 91 measured days,
 * their bills kept in the buckets billing-service keeps and judged by the same functions
 * (@gw/money's mayAlert, usualSpendOf and judgeSpend): every alert on an account's own traffic is a
 * false alarm. Then, from a moment at random in the measured days, a leak spends at the limit
 * (30 requests a minute, taking the places the holder's own requests would have had) with an active
 * key or with one unused for weeks, for up to a day: the minutes until the rule flags it, and what
 * it spent by then.
 *
 *   npm run -s bench:spend-replay -- [--accounts 700] [--seed 1] [--grid]
 *     [--multiple N] [--quantile Q] [--spread H] [--history-days D] [--floor LYD] [--wake-floor LYD]
 *
 * --grid replays the candidate rules around the chosen one (spend-replay-tally.ts) and prints a
 * line each; without it, the chosen rule (SPEND_RULE, or with the parameters given) alone, with
 * its figures per pattern.
 */

/** Days replayed before the measured ones: history enough for any rule of the grid. */
const WARM_UP_DAYS = 35;
const MEASURED_DAYS = 91;
const DAY_MINUTES = 1440;
const MINUTES = (WARM_UP_DAYS + MEASURED_DAYS) * DAY_MINUTES;
const LEAK_MINUTES = DAY_MINUTES;

/** What a leak sends, at the limit: chat-sized requests (replies of about 5 s, so 3 at a time allow 30 a minute) to one model. */
const LEAK_SIZES: Record<string, RequestSizes> = {
  flash: { promptMedian: 1_200, replyMedian: 300, proShare: 0 },
  pro: { promptMedian: 1_200, replyMedian: 300, proShare: 1 },
};

/** The leaks replayed on every account: which key, which model. */
export const LEAKS = [
  { name: 'active key, flash', key: 'active', sizes: LEAK_SIZES.flash },
  { name: 'active key, pro', key: 'active', sizes: LEAK_SIZES.pro },
  { name: 'key idle for weeks, flash', key: OLD_KEY, sizes: LEAK_SIZES.flash },
] as const;

function flag(name: string, fallback: number): number;
function flag(name: string, fallback: undefined): number | undefined;
function flag(name: string, fallback: number | undefined): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** SPEND_RULE with the parameters the command line gives. */
function ruleOfFlags(): SpendRule {
  const spread = flag('spread', undefined);
  return {
    ...SPEND_RULE,
    multiple: flag('multiple', SPEND_RULE.multiple),
    historyDays: flag('history-days', SPEND_RULE.historyDays),
    quantile: flag('quantile', SPEND_RULE.quantile),
    sameHourSpread: spread ?? SPEND_RULE.sameHourSpread,
    floorMicro: Math.round(flag('floor', SPEND_RULE.floorMicro / 1e6) * 1e6),
    wakeFloorMicro: Math.round(flag('wake-floor', SPEND_RULE.wakeFloorMicro / 1e6) * 1e6),
  };
}

/** Replays one account under every rule: its false alarms over the measured days, then each leak. */
function replayAccount(index: number, seed: number, rules: SpendRule[], tally: ReplayTally): void {
  const rng = seeded(seed * 1_000_003 + index);
  const pattern: Pattern = PATTERNS[index % PATTERNS.length];
  const plan = planAccount(rng, pattern, WARM_UP_DAYS + MEASURED_DAYS, WARM_UP_DAYS);
  const keys = keysOf(plan);
  const traffic = legitTraffic(rng, plan, MINUTES);
  const measuredFrom = Math.max(WARM_UP_DAYS * DAY_MINUTES, plan.start?.minute ?? 0);
  const leaks = LEAKS.filter((l) => l.key !== OLD_KEY || keys.includes(OLD_KEY)).map((leak) => ({
    leak,
    start: Math.floor(measuredFrom + rng() * (MINUTES - LEAK_MINUTES - measuredFrom)),
    books: undefined as SpendBooks | undefined,
  }));
  const books = SpendBooks.empty(keys, MINUTES);
  const replays = rules.map((rule) => new RuleReplay(rule));
  for (let m = 0; m < MINUTES; m++) {
    for (const l of leaks) if (l.start === m) l.books = books.copy();
    for (const [key, t] of traffic) books.bill(key, m, t.requests[m], t.spendMicro[m]);
    // A false alarm is judged as often as the slots fill: at each one's end, when it had bills.
    if (m >= measuredFrom && m % 5 === 4 && books.slotBilled(m)) {
      const read = books.recent(m);
      for (const r of replays) r.judge(books, m, read);
    }
  }
  tally.account(pattern, (MINUTES - measuredFrom) / DAY_MINUTES, replays);
  for (const { leak, start, books: atStart } of leaks) {
    if (!atStart) throw new Error('a leak without its books');
    const leakKey = leak.key === OLD_KEY ? OLD_KEY : plan.rotation !== undefined && start >= plan.rotation ? 'rotated' : 'k0';
    const leakReplays = rules.map((rule) => new RuleReplay(rule));
    const flagged = new Array<{ minutes: number; spentMicro: number; named: boolean } | undefined>(rules.length);
    let spent = 0;
    for (let m = start; m < start + LEAK_MINUTES && flagged.includes(undefined); m++) {
      const own = [...traffic].map(([key, t]) => ({ key, requests: t.requests[m], spend: t.spendMicro[m] }));
      const ownRequests = own.reduce((sum, o) => sum + o.requests, 0);
      // At the limit the leak and the holder's own requests share the 30 a minute, in proportion.
      const leakRequests = Math.round((PER_MINUTE * PER_MINUTE) / (PER_MINUTE + ownRequests));
      const ownShare = ownRequests > 0 ? Math.min(1, (PER_MINUTE - leakRequests) / ownRequests) : 1;
      for (const o of own) atStart.bill(o.key, m, o.requests * ownShare, o.spend * ownShare);
      let leakSpend = 0;
      for (let i = 0; i < leakRequests; i++) leakSpend += requestCost(rng, leak.sizes);
      atStart.bill(leakKey, m, leakRequests, leakSpend);
      spent += leakSpend;
      const read = atStart.recent(m);
      leakReplays.forEach((r, i) => {
        if (flagged[i]) return;
        const alert = r.judge(atStart, m, read);
        if (alert) flagged[i] = { minutes: m - start + 1, spentMicro: spent, named: alert.keyId === leakKey };
      });
    }
    tally.leak(pattern, leak.name, flagged);
  }
}

function main(): void {
  const accounts = flag('accounts', 700);
  const seed = flag('seed', 1);
  const grid = process.argv.includes('--grid');
  const rules = grid ? candidateRules() : [ruleOfFlags()];
  const tally = new ReplayTally(
    rules,
    LEAKS.map((l) => l.name),
  );
  const started = Date.now();
  for (let i = 0; i < accounts; i++) {
    replayAccount(i, seed, rules, tally);
    if ((i + 1) % 50 === 0) process.stderr.write(`${i + 1}/${accounts} accounts, ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
  process.stdout.write(grid ? tally.gridTable() : tally.ruleTables(0));
}

main();
