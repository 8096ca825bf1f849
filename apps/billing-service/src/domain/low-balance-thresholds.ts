import { MAX_MICRO_LYD } from '@gw/money';
import { optionalId, requireCount, requireId } from '@gw/service-kit';
import { ThresholdReading, ThresholdStore } from '../store/threshold-store';

/** The longest `set_by`: a holder's email (at most 320 characters). */
const MAX_SET_BY_LENGTH = 320;

/** The low-balance thresholds the console's holders set (billing.v1 SetLowBalanceThreshold, GetLowBalanceThreshold). */
export class LowBalanceThresholds {
  constructor(private readonly store: ThresholdStore) {}

  /** Sets or removes (undefined) the threshold, 0 to MAX_MICRO_LYD; with `keepExisting` only where none is. The threshold in force after it. */
  set(accountId: string, thresholdMicro: number | undefined, keepExisting: boolean, setBy: string): Promise<number | undefined> {
    requireId('account_id', accountId);
    if (thresholdMicro !== undefined) requireCount('threshold_micro_lyd', thresholdMicro, MAX_MICRO_LYD);
    optionalId('set_by', setBy, MAX_SET_BY_LENGTH);
    return this.store.setThreshold(accountId, thresholdMicro, keepExisting, setBy);
  }

  /** The threshold (undefined: none) and the balance. */
  get(accountId: string): Promise<ThresholdReading> {
    return this.store.threshold(requireId('account_id', accountId));
  }
}
