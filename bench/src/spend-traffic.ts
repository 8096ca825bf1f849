import { tokenCostMicro, TokenPrices } from '@gw/money';

/** The prices of the two models every account may use (billing's first migration), micro-LYD per million tokens. */
const FLASH: TokenPrices = { inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 4_000_000 };
const PRO: TokenPrices = { inputMicroPerMillion: 4_000_000, outputMicroPerMillion: 16_000_000 };

/** The limit every account's keys share (docs/api.md#rate-limits). */
export const PER_MINUTE = 30;
export const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;

/** A seeded source of numbers in [0, 1) (mulberry32), so that a replay is the same every run. */
export type Rng = () => number;
export function seeded(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const normal = (rng: Rng) => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const logNormal = (rng: Rng, median: number, sigma: number) => median * Math.exp(sigma * normal(rng));
const logUniform = (rng: Rng, low: number, high: number) => low * Math.pow(high / low, rng());
const between = (rng: Rng, low: number, high: number) => low + (high - low) * rng();

/** A Poisson draw (Knuth's for small means, a rounded normal for large ones). */
function poisson(rng: Rng, mean: number): number {
  if (mean <= 0) return 0;
  if (mean > 40) return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal(rng)));
  const limit = Math.exp(-mean);
  let n = 0;
  for (let p = rng(); p > limit; p *= rng()) n++;
  return n;
}

/** The sizes of one account's requests: medians of lognormal prompt and reply tokens, and the share sent to the pro model. */
export interface RequestSizes {
  promptMedian: number;
  replyMedian: number;
  proShare: number;
}

/** What one request costs, micro-LYD, drawn from `sizes`. */
export function requestCost(rng: Rng, sizes: RequestSizes): number {
  const prompt = Math.min(1_000_000, Math.round(logNormal(rng, sizes.promptMedian, 0.8)));
  const reply = Math.min(32_768, Math.round(logNormal(rng, sizes.replyMedian, 0.6)));
  return Number(tokenCostMicro(prompt, reply, rng() < sizes.proShare ? PRO : FLASH));
}

/** The kinds of traffic the replay plays (docs/architecture.md#a-leaked-key-caught-early). */
export type Pattern = 'steady' | 'daily' | 'weekly' | 'batch-jobs' | 'launch' | 'growth' | 'new';
export const PATTERNS: readonly Pattern[] = ['steady', 'daily', 'weekly', 'batch-jobs', 'launch', 'growth', 'new'];

/** One account's plan: how much, when, with which keys. Times are minutes from the replay's start. */
export interface AccountPlan {
  pattern: Pattern;
  /** Requests a minute at the account's usual level (before its daily shape and noise). */
  rate: number;
  sizes: RequestSizes;
  /** Its daily shape (busy in business hours when `shaped`): the local hour offset from UTC, the weekend's share of a weekday. */
  shaped: boolean;
  utcOffsetHours: number;
  weekendShare: number;
  /** Its regular keys and their shares of its traffic. */
  keys: { id: string; share: number }[];
  /** A key used by a monthly job only (every 30 days), as many holders have. */
  monthlyJob?: { firstMinute: number; requests: number; perMinute: number };
  /** Traffic moves to a new key at this minute (the holder rotated its key). */
  rotation?: number;
  /** batch-jobs: a job of `hours` at `perMinute` every `everyDays` days from `firstMinute` (or on a day in `everyDays` at random when irregular). */
  batch?: { firstMinute: number; everyDays: number; irregular: boolean; hours: number; perMinute: number };
  /** launch: from this minute the traffic is `factor` times what it was, reached over 6 hours. */
  launch?: { minute: number; factor: number };
  /** growth: per week. */
  weeklyGrowth?: number;
  /** new: the account's first minute, its days of trying the API, and the days it takes to reach its level. */
  start?: { minute: number; tryDays: number; rampDays: number };
}

/** The key every account but a new one used in its first days only, and then no more: one a leak may wake. */
export const OLD_KEY = 'old';
const OLD_KEY_DAYS = 5;

/** The keys of a plan's traffic: its regular keys, the old one, the monthly job's and the rotated-to key. */
export function keysOf(plan: AccountPlan): string[] {
  return [
    ...plan.keys.map((k) => k.id),
    ...(plan.start ? [] : [OLD_KEY]),
    ...(plan.monthlyJob ? ['monthly-job'] : []),
    ...(plan.rotation !== undefined ? ['rotated'] : []),
  ];
}

/** A plan for one account of `pattern`, over `days` days of which the first `historyDays` are only history. */
export function planAccount(rng: Rng, pattern: Pattern, days: number, historyDays: number): AccountPlan {
  const measured = (from = 0) => Math.floor(between(rng, historyDays + from, days - 2) * DAY_MINUTES);
  const keyCount = 1 + Math.floor(rng() * 3);
  const shares = Array.from({ length: keyCount }, (_, i) => (i === 0 ? 1 : between(rng, 0.05, 0.5)));
  const total = shares.reduce((a, b) => a + b, 0);
  const plan: AccountPlan = {
    pattern,
    rate: logUniform(rng, 0.003, 8),
    sizes: {
      promptMedian: logUniform(rng, 300, 12_000),
      replyMedian: logUniform(rng, 80, 1_200),
      proShare: [0, 0, 0.3, 1][Math.floor(rng() * 4)],
    },
    shaped: pattern === 'daily' || pattern === 'weekly' || pattern === 'batch-jobs' || (pattern !== 'steady' && rng() < 0.5),
    utcOffsetHours: Math.floor(between(rng, -8, 10)),
    weekendShare: pattern === 'weekly' ? between(rng, 0.05, 0.4) : 1,
    keys: shares.map((s, i) => ({ id: `k${i}`, share: s / total })),
  };
  if (rng() < 0.2) {
    const perMinute = between(rng, 5, 25);
    plan.monthlyJob = {
      firstMinute: Math.floor(between(rng, 0, 30) * DAY_MINUTES),
      requests: Math.floor(logUniform(rng, 50, 3000)),
      perMinute,
    };
  }
  if (rng() < 0.1) plan.rotation = measured();
  if (pattern === 'batch-jobs') {
    const irregular = rng() < 0.3;
    const everyDays = irregular ? Math.floor(between(rng, 5, 20)) : rng() < 0.6 ? 7 : 30;
    plan.batch = {
      firstMinute: Math.floor(between(rng, 0, everyDays) * DAY_MINUTES),
      everyDays,
      irregular,
      hours: between(rng, 0.5, 4),
      perMinute: between(rng, 10, 28),
    };
  }
  if (pattern === 'launch') plan.launch = { minute: measured(), factor: logUniform(rng, 2, 12) };
  if (pattern === 'growth') plan.weeklyGrowth = between(rng, 0.05, 0.3);
  if (pattern === 'new') plan.start = { minute: measured(-historyDays), tryDays: between(rng, 0, 3), rampDays: logUniform(rng, 0.25, 14) };
  return plan;
}

/** The share of a weekday's traffic at local hour `h` (0-24) of a business day: low at night, high 9 to 18. */
function businessHours(h: number): number {
  const day = 1 / (1 + Math.exp(-(h - 8.5) * 2)) - 1 / (1 + Math.exp(-(h - 18.5) * 1.5));
  return 0.12 + 1.8 * day;
}

/** The plan's requests a minute at `minute`, before noise and the limit. */
function rateAt(plan: AccountPlan, minute: number): number {
  const localHour = (((minute / 60 + plan.utcOffsetHours) % 24) + 24) % 24;
  const localDay = Math.floor((minute / 60 + plan.utcOffsetHours) / 24);
  let rate = plan.rate;
  if (plan.shaped) rate *= businessHours(localHour);
  if (((localDay % 7) + 7) % 7 >= 5) rate *= plan.weekendShare;
  if (plan.weeklyGrowth) rate *= Math.pow(1 + plan.weeklyGrowth, minute / (7 * DAY_MINUTES));
  if (plan.launch && minute >= plan.launch.minute) rate *= 1 + (plan.launch.factor - 1) * Math.min(1, (minute - plan.launch.minute) / 360);
  if (plan.start) {
    const since = (minute - plan.start.minute) / DAY_MINUTES;
    if (since < 0) return 0;
    if (since < plan.start.tryDays) return Math.min(rate, 3 / 60);
    rate *= Math.min(1, Math.max(0.02, (since - plan.start.tryDays) / plan.start.rampDays));
  }
  return rate;
}

/** Each key's requests and spend in each minute of the replay. */
export interface KeyTraffic {
  requests: Uint16Array;
  spendMicro: Float64Array;
}

/** Whether a batch job of the plan runs at `minute`. */
function batchRunning(plan: AccountPlan, minute: number, irregularDays: Set<number>): boolean {
  const b = plan.batch;
  if (!b || minute < b.firstMinute) return false;
  const day = Math.floor((minute - b.firstMinute) / DAY_MINUTES);
  const into = (minute - b.firstMinute) % DAY_MINUTES;
  if (into >= b.hours * 60) return false;
  return b.irregular ? irregularDays.has(day) : day % b.everyDays === 0;
}

/** The plan's traffic over `minutes` minutes: noise of each hour and day on top of its shape, 30 a minute at most. */
export function legitTraffic(rng: Rng, plan: AccountPlan, minutes: number): Map<string, KeyTraffic> {
  const traffic = new Map(keysOf(plan).map((id) => [id, { requests: new Uint16Array(minutes), spendMicro: new Float64Array(minutes) }]));
  const irregularDays = new Set(
    Array.from({ length: minutes / DAY_MINUTES }, (_, d) => d).filter(() => rng() < 1 / (plan.batch?.everyDays ?? 1)),
  );
  let noise = 1;
  let dayNoise = 1;
  const job = plan.monthlyJob;
  let jobLeft = 0;
  for (let m = 0; m < minutes; m++) {
    if (m % DAY_MINUTES === 0) dayNoise = logNormal(rng, 1, 0.25);
    if (m % 60 === 0) noise = dayNoise * logNormal(rng, 1, 0.35);
    let mean = rateAt(plan, m) * noise;
    if (batchRunning(plan, m, irregularDays)) mean += plan.batch?.perMinute ?? 0;
    let n = Math.min(PER_MINUTE, poisson(rng, mean));
    if (!plan.start && m < OLD_KEY_DAYS * DAY_MINUTES && rng() < 1 / 30) {
      add(traffic.get(OLD_KEY), m, 1);
      n = Math.min(n, PER_MINUTE - 1);
    }
    if (job && m >= job.firstMinute && (m - job.firstMinute) % (30 * DAY_MINUTES) === 0) jobLeft = job.requests;
    if (jobLeft > 0) {
      const jobNow = Math.min(jobLeft, Math.round(job?.perMinute ?? 0), PER_MINUTE);
      jobLeft -= jobNow;
      add(traffic.get('monthly-job'), m, jobNow);
      n = Math.min(n, PER_MINUTE - jobNow);
    }
    for (let i = 0; i < n; i++) {
      let u = rng();
      let key = plan.keys[plan.keys.length - 1].id;
      for (const k of plan.keys) {
        if (u < k.share) {
          key = k.id;
          break;
        }
        u -= k.share;
      }
      add(traffic.get(plan.rotation !== undefined && m >= plan.rotation && key === 'k0' ? 'rotated' : key), m, 1);
    }
  }
  return traffic;

  function add(t: KeyTraffic | undefined, m: number, n: number) {
    if (!t) return;
    for (let i = 0; i < n; i++) t.spendMicro[m] += requestCost(rng, plan.sizes);
    t.requests[m] += n;
  }
}
