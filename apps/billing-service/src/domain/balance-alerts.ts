/** An account's balance alerts as kept (billing.balance_alerts), micro-LYD. */
export interface BalanceAlertState {
  /** The low-balance threshold its holders set; undefined: none. */
  thresholdMicro: number | undefined;
  /** The balance is at or below the threshold: the low-balance event was made, and is not made again until it goes back above. */
  below: boolean;
  /** The balance was found unable to pay for a request: the exhausted event was made, and is not made again until a top-up. */
  exhausted: boolean;
}

/** An account without alerts. */
export const NO_ALERTS: BalanceAlertState = { thresholdMicro: undefined, below: false, exhausted: false };

/** Whether a balance is low: at or below a threshold that is set. */
export const isLowBalance = (balanceMicro: number, thresholdMicro: number | undefined): boolean =>
  thresholdMicro !== undefined && balanceMicro <= thresholdMicro;

/**
 * After the balance moved to `balanceMicro`: the alerts, and whether it has just fallen to or
 * below the threshold (the low-balance event, made once until it went back above). A top-up
 * (`toppedUp`) also arms the exhausted event again.
 */
export function afterBalanceMove(
  state: BalanceAlertState,
  balanceMicro: number,
  toppedUp: boolean,
): { state: BalanceAlertState; fellBelow: boolean } {
  const below = isLowBalance(balanceMicro, state.thresholdMicro);
  return { state: { ...state, below, exhausted: state.exhausted && !toppedUp }, fellBelow: below && !state.below };
}

/**
 * A threshold set (or removed, undefined) while the balance is `balanceMicro`: no event, as the
 * balance did not fall; a balance already at or below it counts as told (the holder sees it).
 */
export const withThreshold = (state: BalanceAlertState, thresholdMicro: number | undefined, balanceMicro: number): BalanceAlertState => ({
  ...state,
  thresholdMicro,
  below: isLowBalance(balanceMicro, thresholdMicro),
});

/**
 * Whether an extension of the line left the request that asked for it uncovered: the line grew
 * (granted total now, less the granted total quota-service had when it asked) by less than the
 * request lacked. Not judged for an ask that does not say (an older quota-service).
 */
export function leftUncovered(ask: { grantedTotalMicro?: number; uncoveredMicro?: number }, grantedTotalNowMicro: number): boolean {
  if (ask.grantedTotalMicro === undefined || ask.uncoveredMicro === undefined || ask.uncoveredMicro <= 0) return false;
  return grantedTotalNowMicro - ask.grantedTotalMicro < ask.uncoveredMicro;
}

/** After a request was left uncovered: the alerts, and whether this is the first time since the last top-up (the exhausted event). */
export const afterUncovered = (state: BalanceAlertState): { state: BalanceAlertState; exhausted: boolean } => ({
  state: { ...state, exhausted: true },
  exhausted: !state.exhausted,
});
