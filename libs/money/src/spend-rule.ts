import { HOUR_MS, KeyWake, lastHourOf, LastHour, SpendBucket } from './spend-buckets';
import { UsualHourRule, UsualSpend } from './spend-usual';

/** Why a key is suspected of having leaked. */
export type SpendAlertReason = 'spend-jump' | 'idle-key';

/**
 * The rule that suspects a leaked key (its figures chosen by the replay, bench/src/spend-replay.ts;
 * docs/architecture.md#a-leaked-key-caught-early says how and why):
 * - `spend-jump`: the account's last hour spent more than `floorMicro` and more than `multiple`
 *   times its usual hour (UsualSpend); the key named is the one furthest above its part of it;
 * - `idle-key`: a key billed again after `idleMs` without a bill spent `wakeFloorMicro` or more
 *   within the hour since.
 * A spend-jump alert is not raised while an alert of the account is open, nor within `coolDownMs`
 * of its last one (one event, one alert: a key that woke is not flagged again for the jump it
 * makes); an idle-key alert never again for its key (a key that wakes after weeks and was let be,
 * as a monthly job's, is known to).
 */
export interface SpendRule extends UsualHourRule {
  multiple: number;
  floorMicro: number;
  idleMs: number;
  wakeFloorMicro: number;
  coolDownMs: number;
}

/** An alert raised earlier, as the cool-down reads it. */
export interface RaisedAlert {
  keyId: string;
  reason: SpendAlertReason;
  raisedAtMs: number;
  /** Not yet dismissed, nor closed by its key's revocation. */
  open: boolean;
}

/** What the rule reads of an account now, beside its usual hour. */
export interface SpendFacts {
  nowMs: number;
  /** The account's 5-minute buckets of the last hour (older ones are left out). */
  recent: readonly SpendBucket[];
  /** Its keys billed again after a rest. */
  wakes: readonly KeyWake[];
  /** Its alerts open or raised within the cool-down, and its idle-key alerts. */
  raised: readonly RaisedAlert[];
}

/** An alert, with the figures the holder and the operator are shown. */
export interface SpendAlert {
  reason: SpendAlertReason;
  keyId: string;
  /** The account's spend in the last hour, micro-LYD, and its paid requests. */
  lastHourMicro: number;
  lastHourRequests: number;
  /** The key's spend in the last hour, micro-LYD. */
  keyLastHourMicro: number;
  /** The account's usual hour and the bar it crossed (spend-jump), micro-LYD; the hours of history they come from. */
  usualMicro: number;
  thresholdMicro: number;
  historyHours: number;
  /** idle-key: how long the key had not been billed, ms. */
  restedMs?: number;
}

/** The wakes that may raise an alert now: long enough a rest, woken within the hour, with enough spend since. */
function suspectWakes(facts: SpendFacts, last: LastHour, rule: SpendRule): KeyWake[] {
  return facts.wakes.filter(
    (w) => w.restedMs >= rule.idleMs && w.wokeAtMs > facts.nowMs - HOUR_MS && (last.keys.get(w.keyId) ?? 0) >= rule.wakeFloorMicro,
  );
}

/**
 * Whether the rule can raise an alert without the account's usual hour: never when the last hour
 * spent no more than the floor and no key woke; so the usual hour is read only for accounts past it.
 */
export function mayAlert(facts: SpendFacts, rule: SpendRule): boolean {
  const last = lastHourOf(facts.recent, facts.nowMs);
  return last.spendMicro > rule.floorMicro || suspectWakes(facts, last, rule).length > 0;
}

const jumpCooling = (facts: SpendFacts, rule: SpendRule) =>
  facts.raised.some((r) => r.open || r.raisedAtMs > facts.nowMs - rule.coolDownMs);
const wokeBefore = (facts: SpendFacts, keyId: string) => facts.raised.some((r) => r.reason === 'idle-key' && r.keyId === keyId);

/**
 * The key of the last hour furthest above its part of the usual hour (the usual hour times the
 * key's share of the history's spend): the first by id of equals.
 */
function keyFurthestAbove(last: LastHour, usual: UsualSpend): string {
  let best = '';
  let bestExcess = -Infinity;
  for (const [keyId, spend] of [...last.keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const excess = spend - usual.usualMicro * (usual.keyShares[keyId] ?? 0);
    if (excess > bestExcess) [best, bestExcess] = [keyId, excess];
  }
  return best;
}

/** The alert the rule raises for the account now (an idle key's first), or undefined; see SpendRule. */
export function judgeSpend(facts: SpendFacts, usual: UsualSpend, rule: SpendRule): SpendAlert | undefined {
  const last = lastHourOf(facts.recent, facts.nowMs);
  const thresholdMicro = Math.max(rule.floorMicro, Math.ceil(rule.multiple * usual.usualMicro));
  const figures = {
    lastHourMicro: last.spendMicro,
    lastHourRequests: last.requests,
    usualMicro: Math.round(usual.usualMicro),
    thresholdMicro,
    historyHours: usual.hours,
  };
  const woke = suspectWakes(facts, last, rule).find((w) => !wokeBefore(facts, w.keyId));
  if (woke) {
    const keyLastHourMicro = last.keys.get(woke.keyId) ?? 0;
    return { reason: 'idle-key', keyId: woke.keyId, keyLastHourMicro, restedMs: woke.restedMs, ...figures };
  }
  if (last.spendMicro <= thresholdMicro || jumpCooling(facts, rule)) return undefined;
  const keyId = keyFurthestAbove(last, usual);
  return { reason: 'spend-jump', keyId, keyLastHourMicro: last.keys.get(keyId) ?? 0, ...figures };
}

const DAY_MS = 24 * HOUR_MS;

/** The rule billing-service applies; its figures are the replay's choice (docs/architecture.md#a-leaked-key-caught-early). */
export const SPEND_RULE: Readonly<SpendRule> = Object.freeze({
  historyDays: 35,
  quantile: 1,
  sameHourSpread: undefined,
  allHoursShare: 0,
  multiple: 3,
  floorMicro: 1_000_000,
  idleMs: 35 * DAY_MS,
  wakeFloorMicro: 100_000,
  coolDownMs: DAY_MS,
});
