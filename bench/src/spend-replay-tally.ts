import { SpendRule, SPEND_RULE } from '@gw/money';
import { RuleReplay } from './spend-replay-account';
import { Pattern, PATTERNS } from './spend-traffic';

const DAY_MS = 86_400_000;
const MONTH_DAYS = 30.44;

/** How common each pattern is among accounts, for the figures of all accounts together. */
const MIX: Record<Pattern, number> = { steady: 0.2, daily: 0.2, weekly: 0.2, 'batch-jobs': 0.1, launch: 0.05, growth: 0.1, new: 0.15 };

/**
 * The rules --grid replays: the way the usual hour is read and the multiple over it, at the
 * chosen floor; then each floor, wake floor and idle time with the rest chosen.
 */
export function candidateRules(): SpendRule[] {
  const rules: SpendRule[] = [];
  for (const [historyDays, quantile, sameHourSpread, allHoursShare] of [
    [28, 1, undefined, 0],
    [35, 0.99, undefined, 0],
    [35, 1, undefined, 0],
    [35, 1, 1, 0.25],
  ] as const)
    for (const multiple of [2, 3, 4, 6]) rules.push({ ...SPEND_RULE, historyDays, quantile, sameHourSpread, allHoursShare, multiple });
  for (const floorMicro of [500_000, 2_000_000, 4_000_000]) rules.push({ ...SPEND_RULE, floorMicro });
  for (const wakeFloorMicro of [0, 1_000_000]) rules.push({ ...SPEND_RULE, wakeFloorMicro });
  for (const idleDays of [7, 32]) rules.push({ ...SPEND_RULE, idleMs: idleDays * 86_400_000 });
  return rules;
}

interface LeakOutcome {
  minutes: number;
  spentMicro: number;
  named: boolean;
}

const quantile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
const minutes = (m: number) => (Number.isFinite(m) ? `${Math.round(m)}` : '> 1 day');
const lyd = (micro: number) => (Number.isFinite(micro) ? (micro / 1e6).toFixed(2) : '-');
const percent = (part: number, whole: number) => `${whole ? Math.round((100 * part) / whole) : 0}%`;

/** What the replay found, per rule: false alarms per pattern, leaks flagged per pattern and kind. */
export class ReplayTally {
  private readonly months = new Map<Pattern, number>();
  private readonly accounts = new Map<Pattern, number>();
  private readonly alarms: Map<Pattern, { jump: number; idle: number; accountsAlarmed: number }>[];
  private readonly leaks: Map<string, LeakOutcome[]>[];

  constructor(
    private readonly rules: SpendRule[],
    private readonly leakNames: string[],
  ) {
    this.alarms = rules.map(() => new Map(PATTERNS.map((p) => [p, { jump: 0, idle: 0, accountsAlarmed: 0 }])));
    this.leaks = rules.map(() => new Map());
  }

  account(pattern: Pattern, measuredDays: number, replays: RuleReplay[]): void {
    this.months.set(pattern, (this.months.get(pattern) ?? 0) + measuredDays / MONTH_DAYS);
    this.accounts.set(pattern, (this.accounts.get(pattern) ?? 0) + 1);
    replays.forEach((r, i) => {
      const a = this.alarms[i].get(pattern);
      if (!a) return;
      a.jump += r.alerts.filter((x) => x.reason === 'spend-jump').length;
      a.idle += r.alerts.filter((x) => x.reason === 'idle-key').length;
      if (r.alerts.length) a.accountsAlarmed++;
    });
  }

  leak(pattern: Pattern, leak: string, flagged: (LeakOutcome | undefined)[]): void {
    flagged.forEach((f, i) => {
      const key = `${pattern}|${leak}`;
      const list = this.leaks[i].get(key) ?? [];
      list.push(f ?? { minutes: Infinity, spentMicro: Infinity, named: false });
      this.leaks[i].set(key, list);
    });
  }

  /** False alarms per account-month of the mix, and of one pattern. */
  private falseAlarms(rule: number, only?: Pattern): { jump: number; idle: number } {
    let jump = 0;
    let idle = 0;
    for (const p of only ? [only] : PATTERNS) {
      const a = this.alarms[rule].get(p);
      const months = this.months.get(p) ?? 0;
      if (!a || !months) continue;
      const weight = only ? 1 : MIX[p];
      jump += (weight * a.jump) / months;
      idle += (weight * a.idle) / months;
    }
    return { jump, idle };
  }

  private outcomes(rule: number, leak: string, only?: Pattern): LeakOutcome[] {
    return (only ? [only] : PATTERNS).flatMap((p) => this.leaks[rule].get(`${p}|${leak}`) ?? []);
  }

  private leakCells(rule: number, leak: string, only?: Pattern): string[] {
    const o = this.outcomes(rule, leak, only);
    if (o.length === 0) return ['-', '-', '-', '-', '-'];
    const m = o.map((x) => x.minutes).sort((a, b) => a - b);
    const spent = o.map((x) => x.spentMicro).sort((a, b) => a - b);
    return [
      `${minutes(quantile(m, 0.5))} / ${minutes(quantile(m, 0.9))}`,
      percent(m.filter((x) => x <= 60).length, m.length),
      percent(m.filter((x) => !Number.isFinite(x)).length, m.length),
      `${lyd(quantile(spent, 0.5))} / ${lyd(quantile(spent, 0.9))}`,
      percent(o.filter((x) => x.named).length, o.length),
    ];
  }

  /** One line per rule: its parameters, false alarms of the mix, and each leak's time to flag. */
  gridTable(): string {
    const head = [
      'days',
      'quantile',
      'same hour ±',
      'multiple',
      'floor LYD',
      'idle days',
      'wake floor LYD',
      'false alarms / account-month (jump + idle key)',
    ];
    const leakHead = this.leakNames.map((l) => `${l}: minutes to flag, median / p90; within an hour; not in a day`);
    const lines = this.rules.map((r, i) => {
      const fa = this.falseAlarms(i);
      return [
        r.historyDays,
        r.quantile,
        r.sameHourSpread ?? 'all hours',
        r.multiple,
        lyd(r.floorMicro),
        r.idleMs / DAY_MS,
        lyd(r.wakeFloorMicro),
        `${(fa.jump + fa.idle).toFixed(3)} (${fa.jump.toFixed(3)} + ${fa.idle.toFixed(3)})`,
        ...this.leakNames.map((l) => this.leakCells(i, l).slice(0, 3).join('; ')),
      ];
    });
    return table([...head, ...leakHead], lines);
  }

  /** The figures of one rule per pattern: false alarms, and each leak's time to flag and spend by then. */
  ruleTables(rule: number): string {
    const r = this.rules[rule];
    const out = [
      `Rule: last hour > max(${lyd(r.floorMicro)} LYD, ${r.multiple} × usual hour); usual hour = quantile ${r.quantile} of the hours of the last ${r.historyDays} days` +
        `${r.sameHourSpread === undefined ? '' : ` within ${r.sameHourSpread} h of the hour of day (at least ${r.allHoursShare} × all hours')`}; ` +
        `idle key: ${r.idleMs / DAY_MS} days unbilled, then ${lyd(r.wakeFloorMicro)} LYD within the hour; cool-down ${r.coolDownMs / 3_600_000} h.\n`,
      table(
        ['pattern', 'accounts', 'account-months', 'false alarms / account-month: spend jump', 'idle key', 'accounts with any'],
        [...PATTERNS, undefined].map((p) => {
          const fa = this.falseAlarms(rule, p);
          const accounts = p ? (this.accounts.get(p) ?? 0) : [...this.accounts.values()].reduce((a, b) => a + b, 0);
          const alarmed = p
            ? (this.alarms[rule].get(p)?.accountsAlarmed ?? 0)
            : [...this.alarms[rule].values()].reduce((a, b) => a + b.accountsAlarmed, 0);
          const months = p ? (this.months.get(p) ?? 0) : [...this.months.values()].reduce((a, b) => a + b, 0);
          return [p ?? 'all (mix)', accounts, Math.round(months), fa.jump.toFixed(3), fa.idle.toFixed(3), percent(alarmed, accounts)];
        }),
      ),
    ];
    for (const leak of this.leakNames)
      out.push(
        `\nLeak: ${leak}\n`,
        table(
          [
            'pattern',
            'minutes to flag, median / p90',
            'within an hour',
            'not in a day',
            'LYD spent by the leak until flagged, median / p90',
            'alert names the key',
          ],
          [...PATTERNS, undefined].map((p) => [p ?? 'all', ...this.leakCells(rule, leak, p)]),
        ),
      );
    return out.join('');
  }
}

function table(head: string[], rows: (string | number)[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n') + '\n';
}
