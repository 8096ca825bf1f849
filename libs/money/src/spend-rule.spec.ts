import { HOUR_MS, KeyWake, SLOT_MS, SpendBucket } from './spend-buckets';
import { judgeSpend, mayAlert, RaisedAlert, SPEND_RULE, SpendAlert } from './spend-rule';
import { usualSpendOf } from './spend-usual';

const DAY_MS = 24 * HOUR_MS;
/** Tuesday 3 March 2026, 14:40 UTC. */
const NOW = Date.UTC(2026, 2, 3, 14, 40);
const { floorMicro: FLOOR, multiple: K } = SPEND_RULE;

/** Hourly buckets of `key` over the rule's history before NOW: `spendAt(hourStart)` micro-LYD each hour (none when 0). */
function history(spendAt: (hourMs: number) => number, key = 'main', days = SPEND_RULE.historyDays): SpendBucket[] {
  const now = NOW - (NOW % HOUR_MS);
  const buckets: SpendBucket[] = [];
  for (let h = now - days * DAY_MS; h < now; h += HOUR_MS) {
    const spendMicro = Math.round(spendAt(h));
    if (spendMicro > 0) buckets.push({ keyId: key, startMs: h, spendMicro, requests: 1 });
  }
  return buckets;
}

/** The last `minutes` minutes of `key` spending `perMinute` micro-LYD a minute, in 5-minute buckets (the last one partial). */
function recent(key: string, perMinute: number, minutes: number): SpendBucket[] {
  const buckets: SpendBucket[] = [];
  for (let at = NOW - minutes * 60_000; at <= NOW; at += 60_000) {
    const startMs = at - (at % SLOT_MS);
    const bucket =
      buckets.find((b) => b.startMs === startMs) ?? buckets[buckets.push({ keyId: key, startMs, spendMicro: 0, requests: 0 }) - 1];
    bucket.spendMicro += perMinute;
    bucket.requests += 30;
  }
  return buckets;
}

const utcHour = (ms: number) => new Date(ms).getUTCHours();
const weekday = (ms: number) => new Date(ms).getUTCDay() % 6 !== 0;

interface Case {
  name: string;
  hours: SpendBucket[];
  recent: SpendBucket[];
  wakes?: KeyWake[];
  raised?: RaisedAlert[];
  alert: Partial<SpendAlert> | undefined;
}

/** What the rule decides at NOW, as billing-service applies it: mayAlert first, then judgeSpend with the usual hour. */
function judge(c: Pick<Case, 'hours' | 'recent' | 'wakes' | 'raised'>): SpendAlert | undefined {
  const facts = { nowMs: NOW, recent: c.recent, wakes: c.wakes ?? [], raised: c.raised ?? [] };
  if (!mayAlert(facts, SPEND_RULE)) return undefined;
  return judgeSpend(facts, usualSpendOf(c.hours, NOW, SPEND_RULE), SPEND_RULE);
}

/** A leak at the limit: 30 requests a minute of about 3,100 micro-LYD (1,650 prompt and 360 reply tokens of the flash model). */
const LEAK_PER_MINUTE = 30 * 3100;

describe('the leaked-key rule (SPEND_RULE), on the patterns the replay plays', () => {
  const cases: Case[] = [
    {
      name: 'steady: an hour like every hour of four weeks raises nothing',
      hours: history(() => 2 * FLOOR),
      recent: recent('main', (2.2 * FLOOR) / 60, 60),
      alert: undefined,
    },
    {
      name: 'steady: an hour twice its busiest raises nothing',
      hours: history(() => 2 * FLOOR),
      recent: recent('main', (4 * FLOOR) / 60, 60),
      alert: undefined,
    },
    {
      name: 'daily cycle: business hours ten times the night, every weekday; a busy afternoon raises nothing',
      hours: history((h) => (weekday(h) && utcHour(h) >= 9 && utcHour(h) < 18 ? 3 * FLOOR : 0.3 * FLOOR)),
      recent: recent('main', (3.5 * FLOOR) / 60, 60),
      alert: undefined,
    },
    {
      name: 'burst seen before: a weekly batch job of two hours at eight times the rest, running again, raises nothing',
      hours: history((h) => (new Date(h).getUTCDay() === 2 && [13, 14].includes(utcHour(h)) ? 8 * FLOOR : FLOOR / 10)),
      recent: recent('main', (8 * FLOOR) / 60, 60),
      alert: undefined,
    },
    {
      name: 'burst never seen: a first batch job far past the busiest hour is flagged (the replay counts it as a false alarm)',
      hours: history(() => FLOOR / 10),
      recent: recent('main', (8 * FLOOR) / 60, 60),
      alert: { reason: 'spend-jump', keyId: 'main', usualMicro: FLOOR / 10, thresholdMicro: Math.max(FLOOR, (K * FLOOR) / 10) },
    },
    {
      name: 'new account: its first requests, under the floor, raise nothing',
      hours: [],
      recent: recent('main', (0.9 * FLOOR) / 60, 60),
      alert: undefined,
    },
    {
      name: 'new account: past the floor in its first hour, flagged with no history to go by',
      hours: [],
      recent: recent('main', (1.5 * FLOOR) / 60, 60),
      alert: { reason: 'spend-jump', keyId: 'main', historyHours: 0, usualMicro: 0, thresholdMicro: FLOOR },
    },
    {
      name: 'leak at the limit: a quiet account flagged once the leak passed the floor, naming the leaked key',
      hours: history(() => 50_000),
      recent: [...recent('main', 50_000 / 60, 60), ...recent('laptop', LEAK_PER_MINUTE, Math.ceil(FLOOR / LEAK_PER_MINUTE) + 1)],
      alert: { reason: 'spend-jump', keyId: 'laptop', usualMicro: 50_000, historyHours: SPEND_RULE.historyDays * 24 - 1 },
    },
    {
      name: 'leak at the limit: not yet past the floor, nothing',
      hours: history(() => 50_000),
      recent: [
        ...recent('main', 50_000 / 60, 60),
        ...recent('laptop', LEAK_PER_MINUTE, Math.floor((FLOOR - 60_000) / LEAK_PER_MINUTE) - 1),
      ],
      alert: undefined,
    },
    {
      name: 'idle key waking: unbilled for twice the idle time, it spends the wake floor within the hour: flagged',
      hours: history(() => 2 * FLOOR),
      recent: [...recent('main', (2 * FLOOR) / 60, 60), ...recent('old', SPEND_RULE.wakeFloorMicro / 5, 6)],
      wakes: [{ keyId: 'old', wokeAtMs: NOW - 6 * 60_000, restedMs: 2 * SPEND_RULE.idleMs }],
      alert: { reason: 'idle-key', keyId: 'old', restedMs: 2 * SPEND_RULE.idleMs },
    },
    {
      name: 'idle key waking: a rest shorter than the idle time raises nothing',
      hours: history(() => 2 * FLOOR),
      recent: [...recent('main', (2 * FLOOR) / 60, 60), ...recent('old', SPEND_RULE.wakeFloorMicro / 5, 6)],
      wakes: [{ keyId: 'old', wokeAtMs: NOW - 6 * 60_000, restedMs: SPEND_RULE.idleMs - DAY_MS }],
      alert: undefined,
    },
    {
      name: 'idle key waking: less than the wake floor within the hour raises nothing',
      hours: history(() => 2 * FLOOR),
      recent: [...recent('main', (2 * FLOOR) / 60, 60), ...recent('old', SPEND_RULE.wakeFloorMicro / 20, 6)],
      wakes: [{ keyId: 'old', wokeAtMs: NOW - 6 * 60_000, restedMs: 2 * SPEND_RULE.idleMs }],
      alert: undefined,
    },
    {
      name: 'cool-down: a spend jump dismissed an hour ago is not raised again',
      hours: [],
      recent: recent('main', (2 * FLOOR) / 60, 60),
      raised: [{ keyId: 'main', reason: 'spend-jump', raisedAtMs: NOW - HOUR_MS, open: false }],
      alert: undefined,
    },
    {
      name: 'cool-down: a day after, a spend jump is raised again',
      hours: [],
      recent: recent('main', (2 * FLOOR) / 60, 60),
      raised: [{ keyId: 'main', reason: 'spend-jump', raisedAtMs: NOW - SPEND_RULE.coolDownMs - 1, open: false }],
      alert: { reason: 'spend-jump' },
    },
    {
      name: 'cool-down: while an alert of the account is open, however old, no spend jump is raised',
      hours: [],
      recent: recent('main', (2 * FLOOR) / 60, 60),
      raised: [{ keyId: 'old', reason: 'idle-key', raisedAtMs: NOW - 30 * DAY_MS, open: true }],
      alert: undefined,
    },
    {
      name: 'cool-down: a key flagged idle once (and let be) is never flagged idle again',
      hours: history(() => 2 * FLOOR),
      recent: [...recent('main', (2 * FLOOR) / 60, 60), ...recent('old', SPEND_RULE.wakeFloorMicro / 5, 6)],
      wakes: [{ keyId: 'old', wokeAtMs: NOW - 6 * 60_000, restedMs: 2 * SPEND_RULE.idleMs }],
      raised: [{ keyId: 'old', reason: 'idle-key', raisedAtMs: NOW - 60 * DAY_MS, open: false }],
      alert: undefined,
    },
  ];

  it.each(cases)('$name', (c) => {
    const alert = judge(c);
    if (c.alert === undefined) expect(alert).toBeUndefined();
    else expect(alert).toMatchObject(c.alert);
  });

  it('gives the figures: the last hour (all keys), its paid requests, the key named, the bar crossed', () => {
    const alert = judge({ hours: history(() => 50_000), recent: [...recent('main', 1000, 60), ...recent('laptop', LEAK_PER_MINUTE, 20)] });
    expect(alert).toEqual({
      reason: 'spend-jump',
      keyId: 'laptop',
      // The last hour's 12 buckets hold 56 of its minutes (13:45 to 14:40).
      lastHourMicro: 56 * 1000 + 21 * LEAK_PER_MINUTE,
      lastHourRequests: 30 * (56 + 21),
      keyLastHourMicro: 21 * LEAK_PER_MINUTE,
      usualMicro: 50_000,
      thresholdMicro: Math.max(FLOOR, K * 50_000),
      historyHours: SPEND_RULE.historyDays * 24 - 1,
    });
  });
});

describe('usualSpendOf', () => {
  const rule = { ...SPEND_RULE, quantile: 0.5, sameHourSpread: undefined, allHoursShare: 0 };

  it('reads the hours before the last one: the hour running and the one before it are left out (a leak does not raise its own bar)', () => {
    const hourNow = NOW - (NOW % HOUR_MS);
    const hours = [
      { keyId: 'k', startMs: hourNow, spendMicro: 900, requests: 1 },
      { keyId: 'k', startMs: hourNow - HOUR_MS, spendMicro: 900, requests: 1 },
      { keyId: 'k', startMs: hourNow - 2 * HOUR_MS, spendMicro: 100, requests: 1 },
    ];
    expect(usualSpendOf(hours, NOW, { ...rule, quantile: 1 })).toMatchObject({ hourMs: hourNow, usualMicro: 100, hours: 1 });
  });

  it("starts a new account's history at its first billed hour, its quiet hours since counted as 0", () => {
    const hours = history((h) => (h >= NOW - 10 * HOUR_MS ? (utcHour(h) % 2 ? 300 : 0) : 0));
    // From its first billed hour (05:00) to 12:00, the running one and the one before left out: 8 hours, 4 of them with 300.
    expect(usualSpendOf(hours, NOW, rule)).toMatchObject({ usualMicro: 0, hours: 8 });
    expect(usualSpendOf(hours, NOW, { ...rule, quantile: 1 })).toMatchObject({ usualMicro: 300, hours: 8 });
    expect(usualSpendOf([], NOW, rule)).toEqual({ hourMs: NOW - (NOW % HOUR_MS), usualMicro: 0, hours: 0, keyShares: {} });
  });

  it('takes the quantile by nearest rank over every hour, or over the same hours of day with a share of every hour', () => {
    const hours = history((h) => 100 + utcHour(h) * 10);
    expect(usualSpendOf(hours, NOW, { ...rule, quantile: 1 }).usualMicro).toBe(330);
    expect(usualSpendOf(hours, NOW, { ...rule, quantile: 0.25 }).usualMicro).toBe(150);
    // 14:40: the hours of day 13 to 15.
    expect(usualSpendOf(hours, NOW, { ...rule, quantile: 1, sameHourSpread: 1 }).usualMicro).toBe(250);
    expect(usualSpendOf(hours, NOW, { ...rule, quantile: 1, sameHourSpread: 1, allHoursShare: 0.9 }).usualMicro).toBe(330 * 0.9);
  });

  it("gives each key's share of the history's spend", () => {
    const hours = [...history(() => 300, 'a'), ...history(() => 100, 'b')];
    expect(usualSpendOf(hours, NOW, rule).keyShares).toEqual({ a: 0.75, b: 0.25 });
  });
});
