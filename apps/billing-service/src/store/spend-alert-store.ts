import { Queryable } from '@gw/service-kit';
import { SpendAlert } from '@gw/money';
import { SpendAlertClosing, SpendAlertRecord } from './spend-records';

/** Which open alerts a close closes: one by its id, or every one naming a key; of one account, or (the operator) any. */
export type SpendAlertTarget = ({ alertId: number } | { keyId: string }) & { accountId: string | undefined };

/** The spend alerts raised (billing.spend_alerts, migration 048), open until closed. */
export interface SpendAlertStore {
  /** Raises the alerts in the batch's transaction `tx`; as kept. */
  raise(tx: Queryable, alerts: readonly { accountId: string; alert: SpendAlert }[]): Promise<SpendAlertRecord[]>;
  /** An account's alerts (or every account's), open ones only unless `includeClosed`, newest first. */
  list(accountId: string | undefined, includeClosed: boolean, limit: number): Promise<SpendAlertRecord[]>;
  /**
   * Closes the open alerts of `target`, as they then stand; undefined when an alert named by its
   * id is not there (or not of the account). One closed before is answered as it stands.
   */
  close(target: SpendAlertTarget, closing: SpendAlertClosing, by: string): Promise<SpendAlertRecord[] | undefined>;
}
