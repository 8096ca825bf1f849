/** The span of a recent bucket: the last hour is read as its 12 slots. */
export const SLOT_MS = 5 * 60_000;
/** The span of a history bucket. */
export const HOUR_MS = 3_600_000;
/** The last hour, as the rule reads it: the slot running now and the 11 before it. */
export const WINDOW_SLOTS = 12;

/**
 * What one key of an account spent in one span of time (a 5-minute slot, or an hour): paid bills
 * only, each counted at its request's admitted time, micro-LYD taken from the balance. `keyId` is
 * '' for bills that carry no key (those of an older release).
 */
export interface SpendBucket {
  keyId: string;
  startMs: number;
  spendMicro: number;
  requests: number;
}

/** A key billed again after a rest: when its current run of bills began, and how long it had not been billed before. */
export interface KeyWake {
  keyId: string;
  wokeAtMs: number;
  restedMs: number;
}

/** The start of the slot holding `ms`. */
export const slotStart = (ms: number): number => ms - (((ms % SLOT_MS) + SLOT_MS) % SLOT_MS);
/** The start of the hour holding `ms` (UTC). */
export const hourStart = (ms: number): number => ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);

/** What an account spent in the last hour: in all, and per key. */
export interface LastHour {
  spendMicro: number;
  requests: number;
  /** Each key's spend, micro-LYD. */
  keys: Map<string, number>;
}

/** The spend of the slots of the last hour (WINDOW_SLOTS ending with the one holding `nowMs`); older slots are left out. */
export function lastHourOf(recent: readonly SpendBucket[], nowMs: number): LastHour {
  const from = slotStart(nowMs) - (WINDOW_SLOTS - 1) * SLOT_MS;
  const keys = new Map<string, number>();
  let spendMicro = 0;
  let requests = 0;
  for (const b of recent) {
    if (b.startMs < from || b.startMs > nowMs) continue;
    spendMicro += b.spendMicro;
    requests += b.requests;
    keys.set(b.keyId, (keys.get(b.keyId) ?? 0) + b.spendMicro);
  }
  return { spendMicro, requests, keys };
}
